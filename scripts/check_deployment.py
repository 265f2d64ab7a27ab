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
   renderings and the code that serves them, each service has its migration Job,
   autoscaler and disruption budget, and every container is hardened alike.

Every problem found is printed; the exit status is 1 when there was any.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import subprocess
import sys
import tempfile

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


def gateway_routes() -> dict[str, str]:
    """Prefix -> upstream (coffer_payments) of deploy/gateway/routes.conf."""
    routes = {}
    pattern = re.compile(r"^\s*~\^(/\S*?)(?:\(/\|\$\)|\$)\s+(coffer_\w+);")
    for line in (ROOT / "deploy/gateway/routes.conf").read_text().splitlines():
        m = pattern.match(line)
        if m:
            routes[m.group(1).replace("\\", "")] = m.group(2)
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


def listen_port(objects: list[dict], container: dict) -> int | None:
    """The port COFFER_HTTP__LISTEN names, from the env or the ConfigMaps the container reads."""
    values = {}
    maps = {o["metadata"]["name"]: o.get("data", {}) for o in objects if o["kind"] == "ConfigMap"}
    for source in container.get("envFrom", []):
        ref = source.get("configMapRef", {}).get("name")
        values.update(maps.get(ref, {}))
    for env in container.get("env", []):
        if "value" in env:
            values[env["name"]] = env["value"]
    listen = values.get("COFFER_HTTP__LISTEN")
    return int(listen.rsplit(":", 1)[1]) if listen else None


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
    autoscalers = {o["spec"]["scaleTargetRef"]["name"] for o in objects if o["kind"] == "HorizontalPodAutoscaler"}
    budgets = [o for o in objects if o["kind"] == "PodDisruptionBudget"]
    jobs = by_component(objects, "Job")
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
        if dname not in autoscalers:
            problem(label, f"{dname}: no HorizontalPodAutoscaler")
        selector = deployment["spec"]["selector"]["matchLabels"]
        if not any(b["spec"].get("selector", {}).get("matchLabels") == selector for b in budgets) and label_needs_budget(label):
            problem(label, f"{dname}: no PodDisruptionBudget selects its pods")
        migrations = [
            j for j in jobs.get(name, []) if "migrate" in j["spec"]["template"]["spec"]["containers"][0].get("args", [])
        ]
        if len(migrations) != 1:
            problem(label, f"{name}: expected one Job that runs migrate, found {len(migrations)}")
        else:
            hardened(label, migrations[0]["metadata"]["name"], migrations[0]["spec"]["template"])
        seen[name] = (port, live, ready, metrics)
    return seen


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
