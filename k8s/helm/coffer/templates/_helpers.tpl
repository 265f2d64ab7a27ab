{{/*
The services, in the order of the gateway's route table (deploy/gateway/routes.conf).
*/}}
{{- define "coffer.serviceNames" -}}
identity payments billing notifications onboarding reconciliation
{{- end }}

{{/*
The prefix of every object's name: the release name when it already says coffer (so that
`helm install coffer` names objects as k8s/base does), else <release>-coffer.
*/}}
{{- define "coffer.fullname" -}}
{{- if contains "coffer" .Release.Name }}
{{- .Release.Name | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-coffer" .Release.Name | trunc 40 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{/*
Labels of every object of a component. Called with (dict "root" $ "component" "identity").
*/}}
{{- define "coffer.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/part-of: coffer
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/*
The image of a component: coffer-<service>, or coffer for the docs.
Called with (dict "root" $ "name" "coffer-identity").
*/}}
{{- define "coffer.image" -}}
{{- $tag := .root.Values.image.tag | default .root.Chart.AppVersion -}}
{{- if .root.Values.image.registry -}}
{{ printf "%s/%s:%s" (trimSuffix "/" .root.Values.image.registry) .name $tag }}
{{- else -}}
{{ printf "%s:%s" .name $tag }}
{{- end }}
{{- end }}

{{/*
The pod-level hardening of k8s/base: a numeric user that is not root (the image's), the
runtime's default seccomp profile, and no service account token, since no Coffer pod calls
the Kubernetes API.
*/}}
{{- define "coffer.podSecurity" -}}
automountServiceAccountToken: false
securityContext:
  runAsNonRoot: true
  runAsUser: 10001
  runAsGroup: 10001
  seccompProfile:
    type: RuntimeDefault
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/*
The container-level hardening of k8s/base.
*/}}
{{- define "coffer.containerSecurity" -}}
securityContext:
  allowPrivilegeEscalation: false
  readOnlyRootFilesystem: true
  capabilities:
    drop: ["ALL"]
{{- end }}

{{/*
An environment variable from a key of a Secret.
Called with (dict "name" "COFFER_DATABASE_URL" "secret" "coffer-identity-db" "key" "url").
*/}}
{{- define "coffer.secretEnv" -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ .secret | quote }}
      key: {{ .key | quote }}
      {{- if .optional }}
      optional: true
      {{- end }}
{{- end }}

{{/*
Identity's Service inside the cluster.
*/}}
{{- define "coffer.identityUrl" -}}
http://{{ include "coffer.fullname" . }}-identity
{{- end }}

{{/*
The settings of a service's ConfigMap. Called with (dict "root" $ "name" "identity").
*/}}
{{- define "coffer.settings" -}}
{{- $root := .root -}}
{{- $svc := index $root.Values.services .name -}}
COFFER_HTTP__LISTEN: "0.0.0.0:8080"
# One worker per core up to 8; Rust counts the CPU limit, not the node's cores.
COFFER_HTTP__WORKERS: "0"
COFFER_HTTP__TRUSTED_PROXIES: {{ $root.Values.http.trustedProxies | quote }}
COFFER_HTTP__BODY_TIMEOUT_SECONDS: {{ $root.Values.http.bodyTimeoutSeconds | int | quote }}
COFFER_HTTP__CONNECTIONS_PER_ADDRESS: {{ $root.Values.http.connectionsPerAddress | int | quote }}
COFFER_DATABASE__POOL_SIZE: {{ $root.Values.database.poolSize | int | quote }}
COFFER_DATABASE__CHECKOUT_TIMEOUT_MS: {{ $root.Values.database.checkoutTimeoutMs | int | quote }}
COFFER_DATABASE__READ_POOL_SIZE: {{ $root.Values.database.readPoolSize | int | quote }}
COFFER_DATABASE__SEARCH_POOL_SIZE: {{ $root.Values.database.searchPoolSize | int | quote }}
COFFER_DATABASE__SEARCHES_PER_ORGANISATION: {{ $root.Values.database.searchesPerOrganisation | int | quote }}
COFFER_DATABASE__SEARCH_TIMEOUT_MS: {{ $root.Values.database.searchTimeoutMs | int | quote }}
COFFER_LOG__LEVEL: {{ $root.Values.log.level | quote }}
COFFER_LOG__FORMAT: {{ $root.Values.log.format | quote }}
COFFER_AUTH__ISSUER: {{ $root.Values.auth.issuer | quote }}
{{- if ne .name "identity" }}
COFFER_AUTH__JWKS_URL: {{ $root.Values.auth.jwksUrl | default (printf "%s/.well-known/jwks.json" (include "coffer.identityUrl" $root)) | quote }}
{{- end }}
COFFER_KAFKA__BROKERS: {{ $root.Values.kafka.brokers | quote }}
COFFER_KAFKA__REPLICATION: {{ $root.Values.kafka.replication | int | quote }}
{{- range $setting, $value := $root.Values.kafka.extra }}
COFFER_KAFKA__EXTRA__{{ $setting | upper }}: {{ $value | toString | quote }}
{{- end }}
# With the hooks, the migration Job applies the migrations and `serve` waits for them.
COFFER_SERVE__MIGRATE: {{ not $root.Values.migrations.hooks | quote }}
COFFER_SERVE__MIGRATIONS_WAIT_SECONDS: {{ $root.Values.migrations.waitSeconds | int | quote }}
{{- if eq .name "identity" }}
COFFER_SSO__ISSUER: {{ $svc.sso.issuer | quote }}
{{- end }}
{{- if eq .name "payments" }}
COFFER_PAYMENTS__PUBLIC_BASE_URL: {{ $svc.publicBaseUrl | quote }}
{{- end }}
{{- if eq .name "onboarding" }}
COFFER_ONBOARDING__IDENTITY_URL: {{ $svc.identityUrl | default (include "coffer.identityUrl" $root) | quote }}
COFFER_ONBOARDING__CAPTCHA: {{ $svc.captcha | quote }}
{{- end }}
{{- if eq .name "reconciliation" }}
COFFER_RECONCILIATION__S3__ENDPOINT: {{ $svc.s3.endpoint | quote }}
COFFER_RECONCILIATION__S3__BUCKET: {{ $svc.s3.bucket | quote }}
COFFER_RECONCILIATION__S3__REGION: {{ $svc.s3.region | quote }}
COFFER_RECONCILIATION__MAX_FILE_BYTES: {{ $svc.maxFileBytes | int64 | quote }}
COFFER_RECONCILIATION__MEMORY_BUDGET_BYTES: {{ $svc.memoryBudgetBytes | int64 | quote }}
COFFER_RECONCILIATION__READERS: {{ $svc.readers | int64 | quote }}
COFFER_RECONCILIATION__READ_SECONDS: {{ $svc.readSeconds | int64 | quote }}
{{- end }}
{{- range $key, $value := $svc.config }}
{{ $key }}: {{ $value | toString | quote }}
{{- end }}
{{- end }}

{{/*
A service's settings from Secrets, by reference only. Called with (dict "root" $ "name" "identity").
*/}}
{{- define "coffer.secretSettings" -}}
{{- $root := .root -}}
{{- $svc := index $root.Values.services .name -}}
{{ include "coffer.secretEnv" (dict "name" "COFFER_DATABASE_URL" "secret" $svc.database.secretName "key" $svc.database.key) }}
{{- with $svc.masterKeys }}
{{ include "coffer.secretEnv" (dict "name" "COFFER_SECRETS__KEYS" "secret" .secretName "key" .keysKey) }}
{{ include "coffer.secretEnv" (dict "name" "COFFER_SECRETS__CURRENT" "secret" .secretName "key" .currentKey "optional" true) }}
{{- end }}
{{- with $svc.fingerprintKey }}
{{ include "coffer.secretEnv" (dict "name" "COFFER_PAYMENTS__FINGERPRINT_KEY" "secret" .secretName "key" .key) }}
{{- end }}
{{- with $svc.identityClient }}
{{ include "coffer.secretEnv" (dict "name" "COFFER_ONBOARDING__CLIENT_ID" "secret" .secretName "key" .clientIdKey) }}
{{ include "coffer.secretEnv" (dict "name" "COFFER_ONBOARDING__CLIENT_SECRET" "secret" .secretName "key" .clientSecretKey) }}
{{- end }}
{{- if and (eq .name "onboarding") (eq $svc.captcha "recaptcha") }}
{{ include "coffer.secretEnv" (dict "name" "COFFER_ONBOARDING__RECAPTCHA_SECRET" "secret" $svc.recaptchaSecret.secretName "key" $svc.recaptchaSecret.key) }}
{{- end }}
{{- with $svc.s3 }}
{{ include "coffer.secretEnv" (dict "name" "COFFER_RECONCILIATION__S3__ACCESS_KEY" "secret" .credentials.secretName "key" .credentials.accessKeyKey) }}
{{ include "coffer.secretEnv" (dict "name" "COFFER_RECONCILIATION__S3__SECRET_KEY" "secret" .credentials.secretName "key" .credentials.secretKeyKey) }}
{{ include "coffer.secretEnv" (dict "name" "COFFER_RECONCILIATION__S3__SESSION_TOKEN" "secret" .credentials.secretName "key" .credentials.sessionTokenKey "optional" true) }}
{{- end }}
{{- range $root.Values.kafka.extraFromSecrets }}
{{ include "coffer.secretEnv" (dict "name" (printf "COFFER_KAFKA__EXTRA__%s" (upper .setting)) "secret" .secretName "key" .key) }}
{{- end }}
{{- end }}

{{/*
Checkov's findings the chart answers with a reason rather than a change.
*/}}
{{- define "coffer.checkovSkips" -}}
checkov.io/skip1: "CKV_K8S_35=Coffer reads its settings from COFFER_* variables (or a TOML file), so Secrets reach it as variables; every one named here is this service's own"
checkov.io/skip2: "CKV_K8S_43=Images are pinned by release tag (image.tag, by default the chart's appVersion)"
{{- end }}

{{/*
The path prefixes each service owns: exactly those of deploy/gateway/routes.conf, which
k8s/base/ingress.yaml mirrors too; change all three together. Identity's /internal/
operations are for the services alone and are not routed. The exact paths (identity's
root, the API description) are written out in ingress.yaml.
*/}}
{{- define "coffer.routes" -}}
identity:
  - /oauth2
  - /.well-known
  - /organisations
  - /search/organisations
  - /accounts
payments:
  - /payments
  - /payment-sources
  - /search/payments
  - /search/payment-agreements
  - /search/supporters
  - /supporters
  - /payment-method-profiles
  - /payouts
  - /test-psp
  - /provider-notifications
  - /pay
billing:
  - /subscription-plans
  - /subscriptions
  - /search/subscriptions
  - /test-clocks
notifications:
  - /webhooks
  - /event-subscriptions
  - /webhook-responses
onboarding:
  - /partner-onboarding-processes
  - /partner-integrations
reconciliation:
  - /reconciliation
{{- end }}

{{/*
Every object goes to the release's namespace (`helm install --namespace`); a render without
one, as a checker's `helm template` is, names the default namespace instead.
*/}}
{{- define "coffer.namespaceSkip" -}}
checkov.io/skip3: "CKV_K8S_21=Objects go to the release's namespace (helm install --namespace); a render without one names default"
{{- end }}

{{/*
What the schema cannot say: a service that verifies tokens needs identity's key set, and
onboarding identity itself, so a release without identity must be told where it is.
*/}}
{{- define "coffer.checkValues" -}}
{{- if not .Values.services.identity.enabled }}
{{- range $name := without (splitList " " (include "coffer.serviceNames" $)) "identity" }}
{{- if and (index $.Values.services $name).enabled (not $.Values.auth.jwksUrl) }}
{{- fail (printf "services.%s needs auth.jwksUrl: this release runs no identity whose key set it could default to" $name) }}
{{- end }}
{{- end }}
{{- if and .Values.services.onboarding.enabled (not .Values.services.onboarding.identityUrl) }}
{{- fail "services.onboarding needs services.onboarding.identityUrl: this release runs no identity it could default to" }}
{{- end }}
{{- end }}
{{- /* A budget that the fewest replicas cannot exceed makes every node drain wait for a
pod the autoscaler may never add (docs/deployment.md, "Scaling"). A percentage is left to
the operator. */}}
{{- range $name := splitList " " (include "coffer.serviceNames" $) }}
{{- $svc := index $.Values.services $name }}
{{- if and $svc.enabled $svc.podDisruptionBudget.enabled (kindIs "float64" $svc.podDisruptionBudget.minAvailable) }}
{{- $fewest := ternary $svc.autoscaling.minReplicas $svc.replicas $svc.autoscaling.enabled | int }}
{{- if le $fewest (int $svc.podDisruptionBudget.minAvailable) }}
{{- fail (printf "services.%s: %d replicas at the fewest with a PodDisruptionBudget of minAvailable %d would block every node drain; raise %s or set podDisruptionBudget.enabled: false" $name $fewest (int $svc.podDisruptionBudget.minAvailable) (ternary "autoscaling.minReplicas" "replicas" $svc.autoscaling.enabled)) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
