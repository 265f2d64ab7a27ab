"""Checks Coffer's deployment files as a cluster and a reviewer would (scripts/check-deployment.sh
runs it with its pinned checkers):

1. hadolint lints deploy/Dockerfile;
2. both kustomize overlays render (kubectl kustomize), the Helm chart lints and renders with
   its default values and production-like ones (Helm's own Go SDK), and values its schema
   refuses are refused;
3. kubernetes-validate --strict validates every rendered object, against the oldest and the
   newest Kubernetes version Coffer supports;
4. checkov's Kubernetes policies pass on every rendering (skips are annotated with a reason
   in the files themselves);
5. the Ingress of every rendering routes exactly the prefixes of deploy/gateway/routes.conf,
   each to the service the gateway sends it to;
6. every service's port, probe paths and metrics path agree across the gateway, the
   renderings and the code that serves them, each service has its migration Job (on the
   Deployment's image), autoscaler and disruption budget (which its fewest replicas exceed),
   the startup probe outlasts the migration wait, every container is hardened alike, every
   COFFER_* variable is one docs/configuration.md documents, and every rendering reads the
   same Secrets by the same names and keys;
7. with --binaries, each service binary accepts the settings every rendering gives its
   Deployment and its migration Job (scripts/check-images.sh passes the binaries it built).

Every problem found is printed; the exit status is 1 when there was any.
"""

from __future__ import annotations

import argparse
import base64
import json
import pathlib
import re
import subprocess
import sys
import tempfile
import time

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
SERVICES = ["identity", "payments", "billing", "notifications", "onboarding", "reconciliation"]
# The oldest Kubernetes release still maintained upstream when this was written, and the
# newest the validator knows: objects valid on both are valid in between.
KUBERNETES_VERSIONS = ["1.32.0", "1.37.0"]
CHART = ROOT / "k8s/helm/coffer"
PRODUCTION_VALUES = ROOT / "k8s/helm/ci/production-values.yaml"

problems: list[str] = []


def problem(where: str, what: str) -> None:
    problems.append(f"{where}: {what}")
    print(f"  FAIL {where}: {what}", file=sys.stderr)


def step(title: str) -> None:
    print(f"check-deployment: {title}", file=sys.stderr)


def run(args: list[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, **kwargs)


def documents(text: str) -> list[dict]:
    return [d for d in yaml.safe_load_all(text) if isinstance(d, dict) and d.get("kind")]


# --- 1. The Dockerfile ---------------------------------------------------------------------


def lint_dockerfile(bin_dir: pathlib.Path) -> None:
    step("hadolint deploy/Dockerfile")
    done = run([str(bin_dir / "hadolint"), str(ROOT / "deploy/Dockerfile")])
    if done.returncode != 0:
        problem("deploy/Dockerfile", "hadolint:\n" + done.stdout + done.stderr)


# --- 2. Renderings --------------------------------------------------------------------------


def kustomize(overlay: str) -> str | None:
    done = run(["kubectl", "kustomize", str(ROOT / "k8s/overlays" / overlay)])
    if done.returncode != 0:
        problem(f"k8s/overlays/{overlay}", "kubectl kustomize failed:\n" + done.stderr)
        return None
    return done.stdout


def helm_values(path: pathlib.Path) -> dict:
    return yaml.safe_load(path.read_text()) or {}


def helm_render(values: dict, label: str) -> str | None:
    import helm_python

    try:
        chart = helm_python.Chart.load(str(CHART))
        rendered = chart.render(values, name="coffer", namespace="coffer", is_install=True)
    except helm_python.HelmError as e:
        problem(label, f"the chart does not render: {e}")
        return None
    # NOTES.txt and helpers render to text that is no object.
    manifests = [text for path, text in sorted(rendered.items()) if path.endswith((".yaml", ".yml"))]
    return "\n---\n".join(manifests)


def lint_chart() -> None:
    import helm_python

    for label, values in [("default values", None), ("production values", helm_values(PRODUCTION_VALUES))]:
        report = helm_python.lint(str(CHART), values, strict=True, namespace="coffer")
        findings = [m for m in report.get("messages", []) if m.get("severity", 0) >= 2]
        for m in findings:
            problem(f"helm lint ({label})", f"{m.get('path')}: {m.get('error')}")
        for e in report.get("errors") or []:
            problem(f"helm lint ({label})", str(e))


def refused_values() -> None:
    """Values the schema must refuse: a setting of the wrong type, an unknown setting, and a
    literal secret where a reference to a Secret belongs."""
    import helm_python

    schema = json.loads((CHART / "values.schema.json").read_text())
    import jsonschema

    defaults = helm_values(CHART / "values.yaml")
    try:
        jsonschema.validate(defaults, schema)
    except jsonschema.ValidationError as e:
        problem("k8s/helm/coffer/values.yaml", f"the chart's own defaults break its schema: {e.message}")
    cases = {
        "a replica count that is no number": {"services": {"payments": {"replicas": "two"}}},
        "an unknown top-level setting": {"replicaCount": 3},
        "an image tag that is no string": {"image": {"tag": 5}},
        "a literal secret where a reference to a Secret belongs": {
            "services": {"payments": {"fingerprintKey": "a-literal-fingerprint-key-of-32-chars"}}
        },
    }
    for label, values in cases.items():
        try:
            helm_python.Chart.load(str(CHART)).render(values, name="coffer", namespace="coffer")
        except helm_python.HelmError:
            continue
        problem("k8s/helm/coffer/values.schema.json", f"accepts {label}: {values}")


# --- 3. Kubernetes schemas ------------------------------------------------------------------


def validate(bin_dir: pathlib.Path, label: str, path: pathlib.Path) -> None:
    for version in KUBERNETES_VERSIONS:
        done = run([str(bin_dir / "kubernetes-validate"), "--strict", "--quiet", "-k", version, str(path)])
        if done.returncode != 0:
            problem(label, f"kubernetes-validate --strict (Kubernetes {version}):\n{done.stdout}{done.stderr}")


# --- 4. checkov -----------------------------------------------------------------------------


def checkov(bin_dir: pathlib.Path, label: str, path: pathlib.Path) -> None:
    done = run(
        [
            str(bin_dir / "checkov"),
            "--file",
            str(path),
            "--framework",
            "kubernetes",
            "--quiet",
            "--compact",
            "--skip-download",
            "--output",
            "json",
        ],
        env={"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(pathlib.Path.home()), "LOG_LEVEL": "ERROR"},
    )
    try:
        report = json.loads(done.stdout or "{}")
    except json.JSONDecodeError:
        problem(label, f"checkov gave no report:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
        return
    reports = report if isinstance(report, list) else [report]
    for r in reports:
        for failed in r.get("results", {}).get("failed_checks", []):
            problem(
                label,
                f"checkov {failed.get('check_id')} ({failed.get('check_name')}) on {failed.get('resource')}",
            )
    if done.returncode not in (0, 1):
        problem(label, f"checkov failed to run:\n{done.stderr[-2000:]}")


# --- 5. Routes ------------------------------------------------------------------------------


# Prefix -> the Ingress pathType that matches as the gateway does: `(/|$)` is a prefix that
# covers whole path segments (Prefix), a bare `$` one exact path (Exact).
GATEWAY_PATH_TYPES: dict[str, str] = {}


def gateway_routes() -> dict[str, str]:
    """Prefix -> upstream (coffer_payments) of deploy/gateway/routes.conf."""
    routes = {}
    pattern = re.compile(r"^\s*~\^(/\S*?)(\(/\|\$\)|\$)\s+(coffer_\w+);")
    for line in (ROOT / "deploy/gateway/routes.conf").read_text().splitlines():
        m = pattern.match(line)
        if m:
            path = m.group(1).replace("\\", "")
            routes[path] = m.group(3)
            GATEWAY_PATH_TYPES[path] = "Exact" if m.group(2) == "$" else "Prefix"
    return routes


def service_component(objects: list[dict]) -> dict[str, str]:
    """Service name -> what the gateway calls it (coffer_payments), by its component label."""
    out = {}
    for o in objects:
        if o["kind"] == "Service":
            component = o["metadata"].get("labels", {}).get("app.kubernetes.io/component")
            if component:
                out[o["metadata"]["name"]] = f"coffer_{component}"
    return out


def compare_routes(label: str, objects: list[dict], gateway: dict[str, str]) -> None:
    names = service_component(objects)
    ingresses = [o for o in objects if o["kind"] == "Ingress"]
    if len(ingresses) != 1:
        problem(label, f"expected one Ingress, found {len(ingresses)}")
        return
    routed = {}
    for rule in ingresses[0]["spec"].get("rules", []):
        for p in rule.get("http", {}).get("paths", []):
            service = p["backend"]["service"]["name"]
            path = p["path"]
            if path in routed:
                problem(label, f"the Ingress routes {path} twice")
            if p.get("pathType") not in ("Prefix", "Exact"):
                problem(label, f"the Ingress path {path} is {p.get('pathType')}, not Prefix or Exact")
            routed[path] = names.get(service, f"(no Service {service})")
            # An Exact /payments would send /payments/{uuid} nowhere; a Prefix /openapi.json
            # would route paths the gateway answers 404 for.
            wanted = GATEWAY_PATH_TYPES.get(path)
            if wanted and p.get("pathType") != wanted:
                problem(label, f"the Ingress path {path} is {p.get('pathType')}; the gateway matches it as {wanted}")
    for prefix, upstream in sorted(gateway.items()):
        if prefix not in routed:
            problem(label, f"the gateway routes {prefix} to {upstream}; the Ingress does not route it")
        elif routed[prefix] != upstream:
            problem(label, f"{prefix}: the gateway sends it to {upstream}, the Ingress to {routed[prefix]}")
    for path in sorted(set(routed) - set(gateway)):
        problem(label, f"the Ingress routes {path}, which the gateway does not")


# --- 6. Ports, probes, metrics, and the objects each service needs ---------------------------


def served_paths() -> dict[str, str]:
    """The health and metrics paths as the HTTP server registers them."""
    server = (ROOT / "crates/http/src/server.rs").read_text()
    found = dict(re.findall(r'\.route\("(/[^"]+)", web::get\(\)\.to\((\w+::\w+)\)', server))
    return {
        "live": next((p for p, h in found.items() if h == "health::live"), ""),
        "ready": next((p for p, h in found.items() if h == "health::ready"), ""),
        "metrics": next((p for p, h in found.items() if h == "metrics::endpoint"), ""),
    }


def gateway_ports() -> dict[str, int]:
    """Service -> the port run-distributed gives it, checked against the gateway's upstreams."""
    script = (ROOT / "scripts/run-distributed.sh").read_text()
    ports = {name: int(port) for name, port in re.findall(r'"(\w+):(\d+)"', script)}
    conf = (ROOT / "deploy/gateway/routes.conf").read_text()
    upstreams = dict(re.findall(r"upstream coffer_(\w+) \{\s*server 127\.0\.0\.1:(\d+);", conf))
    for name in SERVICES:
        if name not in ports:
            problem("scripts/run-distributed.sh", f"starts no {name}")
        elif int(upstreams.get(name, 0)) != ports[name]:
            problem(
                "deploy/gateway/routes.conf",
                f"upstream coffer_{name} is {upstreams.get(name)}; run-distributed serves {name} on {ports[name]}",
            )
    return ports


def by_component(objects: list[dict], kind: str) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for o in objects:
        if o["kind"] == kind:
            labels = o["metadata"].get("labels", {})
            out.setdefault(labels.get("app.kubernetes.io/component", ""), []).append(o)
    return out


def settings(objects: list[dict], container: dict) -> dict[str, str]:
    """The plain (non-secret) variables a container gets, from its ConfigMaps and env."""
    values = {}
    maps = {o["metadata"]["name"]: o.get("data", {}) for o in objects if o["kind"] == "ConfigMap"}
    for source in container.get("envFrom", []):
        ref = source.get("configMapRef", {}).get("name")
        values.update(maps.get(ref, {}))
    for env in container.get("env", []):
        if "value" in env:
            values[env["name"]] = env["value"]
    return values


def secret_refs(container: dict) -> dict[str, tuple]:
    """Variable -> (Secret, key, optional) of every secretKeyRef a container reads."""
    refs = {}
    for env in container.get("env", []):
        ref = env.get("valueFrom", {}).get("secretKeyRef")
        if ref:
            refs[env["name"]] = (ref["name"], ref["key"], bool(ref.get("optional")))
    return refs


def listen_port(objects: list[dict], container: dict) -> int | None:
    """The port COFFER_HTTP__LISTEN names, from the env or the ConfigMaps the container reads."""
    listen = settings(objects, container).get("COFFER_HTTP__LISTEN")
    return int(listen.rsplit(":", 1)[1]) if listen else None


def documented_variables() -> tuple[set[str], tuple[str, ...]]:
    """The COFFER_* variables docs/configuration.md documents, and the prefixes it documents
    a family under (COFFER_KAFKA__EXTRA__<NAME>). A cell's `…__KEY` shorthand repeats the
    section of the full name before it."""
    names, prefixes = set(), []
    for line in (ROOT / "docs/configuration.md").read_text().splitlines():
        if not line.startswith("|"):
            continue
        for cell in line.split("|"):
            section = None
            for token in re.findall(r"`((?:COFFER_|…__)[A-Za-z0-9_<>]+)`", cell):
                if token.startswith("…__") and section:
                    token = section + token[1:]
                if "<" in token:
                    prefixes.append(token.split("<", 1)[0])
                    continue
                names.add(token)
                section = token.rsplit("__", 1)[0]
    return names, tuple(prefixes)


def documented(label: str, where: str, names: set[str] | list[str], known: tuple[set[str], tuple[str, ...]]) -> None:
    # Figment ignores a variable no setting reads, so a misspelt one is lost without a word.
    for name in sorted(names):
        if name.startswith("COFFER_") and name not in known[0] and not name.startswith(known[1]):
            problem(label, f"{where}: {name} is no setting docs/configuration.md documents")


def hardened(label: str, name: str, pod: dict) -> None:
    spec = pod["spec"]
    if not spec.get("securityContext", {}).get("runAsNonRoot"):
        problem(label, f"{name}: the pod may run as root")
    for c in spec.get("containers", []) + spec.get("initContainers", []):
        sc = c.get("securityContext", {})
        where = f"{name}/{c['name']}"
        if sc.get("allowPrivilegeEscalation") is not False:
            problem(label, f"{where}: privilege escalation is not refused")
        if sc.get("readOnlyRootFilesystem") is not True:
            problem(label, f"{where}: the root filesystem is writable")
        if "ALL" not in sc.get("capabilities", {}).get("drop", []):
            problem(label, f"{where}: capabilities are not all dropped")
        resources = c.get("resources", {})
        for kind in ("requests", "limits"):
            if not {"cpu", "memory"} <= set(resources.get(kind, {})):
                problem(label, f"{where}: no cpu and memory {kind}")


def compare_services(label: str, objects: list[dict], paths: dict[str, str]) -> dict[str, tuple]:
    """Checks each service's objects; answers its (port, live, ready, metrics) as deployed."""
    deployments = by_component(objects, "Deployment")
    services = by_component(objects, "Service")
    autoscalers = {o["spec"]["scaleTargetRef"]["name"]: o for o in objects if o["kind"] == "HorizontalPodAutoscaler"}
    budgets = [o for o in objects if o["kind"] == "PodDisruptionBudget"]
    jobs = by_component(objects, "Job")
    known = documented_variables()
    for o in objects:
        if o["kind"] == "ConfigMap":
            documented(label, f"ConfigMap {o['metadata']['name']}", set(o.get("data", {})), known)
    seen = {}
    for name in SERVICES:
        found = deployments.get(name, [])
        if len(found) != 1:
            problem(label, f"{name}: expected one Deployment, found {len(found)}")
            continue
        deployment = found[0]
        dname = deployment["metadata"]["name"]
        pod = deployment["spec"]["template"]
        hardened(label, dname, pod)
        container = pod["spec"]["containers"][0]
        ports = {p.get("name"): p["containerPort"] for p in container.get("ports", [])}
        port = ports.get("http")
        live = container.get("livenessProbe", {}).get("httpGet", {}).get("path")
        ready = container.get("readinessProbe", {}).get("httpGet", {}).get("path")
        annotations = pod["metadata"].get("annotations", {})
        metrics = annotations.get("prometheus.io/path")
        if (live, ready, metrics) != (paths["live"], paths["ready"], paths["metrics"]):
            problem(
                label,
                f"{dname}: probes {live}, {ready} and metrics {metrics}; the server serves "
                f"{paths['live']}, {paths['ready']} and {paths['metrics']}",
            )
        if str(annotations.get("prometheus.io/port")) != str(port):
            problem(label, f"{dname}: metrics scraped on {annotations.get('prometheus.io/port')}, served on {port}")
        if listen_port(objects, container) != port:
            problem(label, f"{dname}: COFFER_HTTP__LISTEN is not the container's http port {port}")
        svc = services.get(name, [])
        if len(svc) != 1 or not any(p.get("targetPort") in ("http", port) for p in svc[0]["spec"]["ports"]):
            problem(label, f"{name}: no Service sends to the http port")
        documented(label, dname, [e["name"] for e in container.get("env", [])], known)
        # `serve` waits this long for the migration Job before it exits saying so; a startup
        # probe that gives up first restarts a pod that was only waiting, with no message.
        wait = settings(objects, container).get("COFFER_SERVE__MIGRATIONS_WAIT_SECONDS", "600")
        startup = container.get("startupProbe", {})
        allowed = startup.get("periodSeconds", 10) * startup.get("failureThreshold", 3)
        if not startup:
            problem(label, f"{dname}: no startup probe, so liveness may restart a pod waiting for migrations")
        elif allowed <= int(wait):
            problem(label, f"{dname}: the startup probe allows {allowed} s, serve waits {wait} s for migrations")
        scaler = autoscalers.get(dname)
        if scaler is None:
            problem(label, f"{dname}: no HorizontalPodAutoscaler")
        selector = deployment["spec"]["selector"]["matchLabels"]
        selecting = [b for b in budgets if b["spec"].get("selector", {}).get("matchLabels") == selector]
        if not selecting and label_needs_budget(label):
            problem(label, f"{dname}: no PodDisruptionBudget selects its pods")
        fewest = scaler["spec"].get("minReplicas", 1) if scaler else deployment["spec"].get("replicas", 1)
        for b in selecting:
            floor = b["spec"].get("minAvailable")
            if isinstance(floor, int) and fewest <= floor:
                problem(label, f"{dname}: {fewest} replicas at the fewest and a budget of minAvailable {floor} block node drains")
        migrations = [
            j for j in jobs.get(name, []) if "migrate" in j["spec"]["template"]["spec"]["containers"][0].get("args", [])
        ]
        if len(migrations) != 1:
            problem(label, f"{name}: expected one Job that runs migrate, found {len(migrations)}")
        else:
            job = migrations[0]
            hardened(label, job["metadata"]["name"], job["spec"]["template"])
            job_container = job["spec"]["template"]["spec"]["containers"][0]
            documented(label, job["metadata"]["name"], [e["name"] for e in job_container.get("env", [])], known)
            # A Job on another image migrates for code other than the pods wait for.
            if job_container.get("image") != container.get("image"):
                problem(label, f"{job['metadata']['name']} runs {job_container.get('image')}, {dname} {container.get('image')}")
            SECRETS.setdefault(label, {})[f"{name} migrate"] = secret_refs(job_container)
            WORKLOADS.setdefault(label, []).append((name, "migrate", job_container, objects))
        SECRETS.setdefault(label, {})[f"{name} serve"] = secret_refs(container)
        WORKLOADS.setdefault(label, []).append((name, "serve", container, objects))
        seen[name] = (port, live, ready, metrics)
    return seen


# Rendering -> "payments serve" -> the Secrets it reads; rendering -> (service, command,
# container, objects) for the settings check of --binaries.
SECRETS: dict[str, dict[str, dict[str, tuple]]] = {}
WORKLOADS: dict[str, list[tuple]] = {}


def compare_secrets() -> None:
    """The Secret table of docs/deployment.md holds for kustomize and the chart alike: every
    rendering reads the same Secrets, by the same names and keys, into the same variables."""
    reference = None
    for label, reads in SECRETS.items():
        if reference is None:
            reference = (label, reads)
            continue
        for workload in sorted(set(reads) | set(reference[1])):
            mine, theirs = reads.get(workload, {}), reference[1].get(workload, {})
            for variable in sorted(set(mine) | set(theirs)):
                # The broker's own credentials are the operator's Secrets, named by them.
                if variable.startswith("COFFER_KAFKA__EXTRA__"):
                    continue
                if mine.get(variable) != theirs.get(variable):
                    problem(
                        label,
                        f"{workload}: {variable} from {mine.get(variable)}, "
                        f"in {reference[0]} from {theirs.get(variable)}",
                    )


def placeholder(variable: str) -> str:
    """A value of the right form for a Secret's variable, which a rendering only names."""
    if variable == "COFFER_DATABASE_URL":
        # Nothing listens on the discard port: the settings are checked before a connection.
        return "postgres://coffer@127.0.0.1:9/coffer"
    if variable == "COFFER_SECRETS__KEYS":
        return "k1:" + base64.b64encode(bytes(32)).decode()
    if variable == "COFFER_PAYMENTS__FINGERPRINT_KEY":
        return "x" * 32
    return "placeholder"


def accepted_settings(binaries: pathlib.Path) -> None:
    """Each binary started with what a rendering gives its container: a bad or missing
    setting ends it at once with exit code 2 (docs/configuration.md); anything else, such as
    waiting for a database that is not there, means the settings passed."""
    for label, workloads in WORKLOADS.items():
        running = []
        for service, command, container, objects in workloads:
            binary = binaries / f"coffer-{service}" / "app"
            if not binary.is_file():
                problem(label, f"--binaries: no {binary}")
                continue
            env = {"PATH": "/usr/bin:/bin", **settings(objects, container)}
            for variable, (_, _, optional) in secret_refs(container).items():
                if not optional:
                    env[variable] = placeholder(variable)
            process = subprocess.Popen(
                [str(binary), command], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
            )
            running.append((f"coffer-{service} {command}", process))
        # Settings are checked before anything else, so a few seconds are ample for all.
        deadline = time.monotonic() + 5
        for what, process in running:
            try:
                _, err = process.communicate(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()
                continue
            if process.returncode == 2:
                problem(label, f"{what} refuses its settings: {err.strip().splitlines()[-1] if err.strip() else ''}")


def label_needs_budget(label: str) -> bool:
    # The dev overlay runs one replica: a budget of one available pod would block every drain.
    return "overlays/dev" not in label


def no_literal_secrets(label: str, objects: list[dict]) -> None:
    for o in objects:
        if o["kind"] == "Secret":
            problem(label, f"Secret {o['metadata']['name']} is written out; secrets are referenced, never shipped")


# --- Main -------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True, type=pathlib.Path, help="the checkers' venv bin directory")
    parser.add_argument(
        "--binaries",
        type=pathlib.Path,
        help="a directory with coffer-<service>/app for each service (deploy/build.sh's layout): "
        "check that each accepts the settings every rendering gives it",
    )
    args = parser.parse_args()

    lint_dockerfile(args.bin)

    step("rendering the overlays and the chart")
    renderings: dict[str, str | None] = {
        "k8s/overlays/dev": kustomize("dev"),
        "k8s/overlays/production": kustomize("production"),
    }
    if not (CHART / "Chart.yaml").is_file() or not PRODUCTION_VALUES.is_file():
        problem("k8s/helm", f"no chart at {CHART.relative_to(ROOT)} with values at {PRODUCTION_VALUES.relative_to(ROOT)}")
    else:
        for label, values in [("default values", {}), ("production values", helm_values(PRODUCTION_VALUES))]:
            label = f"k8s/helm/coffer ({label})"
            renderings[label] = helm_render(values, label)
        step("helm lint, and values the schema must refuse")
        lint_chart()
        refused_values()

    gateway = gateway_routes()
    if len(gateway) < 10:
        problem("deploy/gateway/routes.conf", f"only {len(gateway)} routes read: has its form changed?")
    gateway_ports()
    paths = served_paths()
    if not all(paths.values()):
        problem("crates/http/src/server.rs", f"cannot find the health and metrics routes: {paths}")

    deployed: dict[str, dict[str, tuple]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, text in renderings.items():
            if text is None:
                continue
            objects = documents(text)
            path = pathlib.Path(tmp) / (re.sub(r"\W+", "-", label).strip("-") + ".yaml")
            path.write_text(text)
            step(f"{label}: {len(objects)} objects: kubernetes-validate, checkov, routes, services")
            validate(args.bin, label, path)
            checkov(args.bin, label, path)
            compare_routes(label, objects, gateway)
            deployed[label] = compare_services(label, objects, paths)
            if label != "k8s/overlays/dev":
                no_literal_secrets(label, objects)
    compare_secrets()
    if args.binaries:
        step(f"the settings of every rendering, against the binaries in {args.binaries}")
        accepted_settings(args.binaries)
    else:
        step("the settings against the binaries: skipped (no --binaries; scripts/check-images.sh passes them)")
    reference = None
    for label, seen in deployed.items():
        if reference is None:
            reference = (label, seen)
        elif seen != reference[1]:
            problem(label, f"ports, probes or metrics differ from {reference[0]}: {seen} against {reference[1]}")

    if problems:
        print(f"check-deployment: {len(problems)} problems", file=sys.stderr)
        return 1
    print("check-deployment: the Dockerfile, both overlays and the chart pass", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
