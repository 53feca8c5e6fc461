//! `deploy/` (its own files; the nightly rebalance CronJob is in `deploy/rebalance/`) is valid YAML that installs a read-only recorder: every
//! document parses, the ClusterRole grants only get/list/watch on exactly
//! the resources `kdrift record` watches (and get/list on the metrics API
//! it samples), and the Deployment runs one
//! recorder (Recreate) with its store on the PVC and the bound service
//! account, probed on /readyz and /healthz, its metrics behind a Service
//! Prometheus scrapes. The image is named once, in the `deploy/image/` component that
//! deploy/ and its sub-kustomizations take (issue 38).

use std::collections::BTreeSet;
use std::path::PathBuf;

use kdrift_rebalance::HISTORY_RESOURCES;
use serde::Deserialize;
use serde_json::Value;

/// The recorder's memory request and limit (deploy/deployment.yaml's comment: measured, extrapolated).
const MEMORY_REQUEST: &str = "1Gi";
const MEMORY_LIMIT: &str = "2Gi";

fn deploy_dir() -> PathBuf {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string());
    PathBuf::from(manifest).join("../deploy")
}

/// Every document of every file, with its file name.
fn documents() -> Vec<(String, Value)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(deploy_dir())
        .expect("deploy/")
        .map(|e| e.expect("entry").path())
        // Only the files directly in deploy/: the nightly rebalance CronJob is
        // installed on its own from deploy/rebalance/ (tests/library/deploy_rebalance.rs).
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
        .collect();
    files.sort();
    assert!(files.len() >= 4, "{files:?}");
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read");
        for doc in serde_yaml::Deserializer::from_str(&text) {
            let v = Value::deserialize(doc).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            if !v.is_null() {
                out.push((f.display().to_string(), v));
            }
        }
    }
    out
}

fn one<'a>(docs: &'a [(String, Value)], kind: &str) -> &'a Value {
    let found: Vec<&Value> = docs.iter().filter(|(_, d)| d["kind"] == kind).map(|(_, d)| d).collect();
    assert_eq!(found.len(), 1, "one {kind}");
    found[0]
}

#[test]
fn every_document_is_a_named_object() {
    for (file, d) in documents() {
        assert!(d["apiVersion"].is_string() && d["kind"].is_string(), "{file}: {d}");
        if d["kind"] != "Kustomization" {
            assert!(d["metadata"]["name"].is_string(), "{file}: {d}");
        }
    }
}

#[test]
fn the_cluster_role_only_reads_exactly_the_recorded_resources() {
    let docs = documents();
    let role = one(&docs, "ClusterRole");
    let mut granted = BTreeSet::new();
    for rule in role["rules"].as_array().expect("rules") {
        let verbs: BTreeSet<&str> = rule["verbs"].as_array().expect("verbs").iter().filter_map(Value::as_str).collect();
        // metrics-server's API is read (sampled), never watched: it has no watch.
        let read =
            if rule["apiGroups"][0] == "metrics.k8s.io" { vec!["get", "list"] } else { vec!["get", "list", "watch"] };
        assert_eq!(verbs, BTreeSet::from_iter(read), "{rule}");
        for g in rule["apiGroups"].as_array().expect("groups") {
            for r in rule["resources"].as_array().expect("resources") {
                granted.insert((g.as_str().unwrap_or("?").to_string(), r.as_str().unwrap_or("?").to_string()));
            }
        }
    }
    let recorded: BTreeSet<(String, String)> = HISTORY_RESOURCES
        .iter()
        .chain([&kdrift_rebalance::NODE_METRICS, &kdrift_rebalance::POD_METRICS])
        .map(|r| (r.group.to_string(), r.plural.to_string()))
        .collect();
    assert_eq!(granted, recorded);
    let binding = one(&docs, "ClusterRoleBinding");
    let sa = one(&docs, "ServiceAccount");
    assert_eq!(binding["roleRef"]["name"], role["metadata"]["name"]);
    assert_eq!(binding["subjects"][0]["name"], sa["metadata"]["name"]);
    assert_eq!(binding["subjects"][0]["namespace"], sa["metadata"]["namespace"]);
}

#[test]
fn the_deployment_runs_one_recorder_on_the_pvc() {
    let docs = documents();
    let d = one(&docs, "Deployment");
    assert_eq!(d["spec"]["replicas"], 1);
    assert_eq!(d["spec"]["strategy"]["type"], "Recreate", "one writer per DuckDB file");
    let pod = &d["spec"]["template"]["spec"];
    assert_eq!(pod["serviceAccountName"], one(&docs, "ServiceAccount")["metadata"]["name"]);
    let c = &pod["containers"][0];
    let args: Vec<&str> = c["args"].as_array().expect("args").iter().filter_map(Value::as_str).collect();
    // The byte caps bound the peak memory under the limit (break-it 36 F3;
    // docs/sources.md "Memory").
    assert_eq!(
        args,
        [
            "record",
            "--db",
            "/data/kdrift.duckdb",
            "--all-namespaces",
            "--metrics-addr",
            "0.0.0.0:9090",
            "--max-event-bytes",
            "16MiB",
            "--max-batch-bytes",
            "16MiB"
        ]
    );
    // A stop costs at most the message in hand and one batch (break-it 36 F4).
    assert_eq!(pod["terminationGracePeriodSeconds"], 30);
    assert_eq!(c["volumeMounts"][0]["mountPath"], "/data");
    assert!(c["resources"]["requests"]["cpu"].is_string() && c["resources"]["requests"]["memory"].is_string());
    let volume = &pod["volumes"][0];
    assert_eq!(volume["name"], c["volumeMounts"][0]["name"]);
    assert_eq!(volume["persistentVolumeClaim"]["claimName"], one(&docs, "PersistentVolumeClaim")["metadata"]["name"]);
}

#[test]
fn the_recorder_is_probed_sized_and_its_metrics_served_to_prometheus() {
    let docs = documents();
    let d = one(&docs, "Deployment");
    let c = &d["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(c["ports"], serde_json::json!([{"name": "metrics", "containerPort": 9090, "protocol": "TCP"}]));
    for (probe, path) in [("startupProbe", "/healthz"), ("readinessProbe", "/readyz"), ("livenessProbe", "/healthz")] {
        assert_eq!(c[probe]["httpGet"]["path"], path, "{probe}");
        assert_eq!(c[probe]["httpGet"]["port"], "metrics", "{probe}");
    }
    // A store migration after an upgrade may take minutes before the server listens.
    let startup = &c["startupProbe"];
    let allowed = startup["periodSeconds"].as_u64().unwrap_or(0) * startup["failureThreshold"].as_u64().unwrap_or(0);
    assert_eq!(allowed, 900, "{startup}");
    assert_eq!(c["resources"]["requests"]["memory"], MEMORY_REQUEST);
    assert_eq!(c["resources"]["limits"]["memory"], MEMORY_LIMIT);
    assert_eq!(c["resources"]["requests"]["cpu"], "250m");
    let s = one(&docs, "Service");
    assert_eq!(s["metadata"]["namespace"], d["metadata"]["namespace"]);
    assert_eq!(s["spec"]["selector"], d["spec"]["template"]["metadata"]["labels"]);
    assert_eq!(s["spec"]["ports"][0]["targetPort"], "metrics");
    assert_eq!(s["spec"]["ports"][0]["port"], 9090);
    let a = &s["metadata"]["annotations"];
    assert_eq!(
        (&a["prometheus.io/scrape"], &a["prometheus.io/port"], &a["prometheus.io/path"]),
        (&serde_json::json!("true"), &serde_json::json!("9090"), &serde_json::json!("/metrics"))
    );
}

/// Every string under an `image` key of a manifest's containers, anywhere in `v`.
fn images(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                match (k.as_str(), x) {
                    ("image", Value::String(s)) => out.push(s.clone()),
                    _ => images(x, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| images(x, out)),
        _ => {}
    }
}

fn yaml(path: &std::path::Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_yaml::Deserializer::from_str(&text)
        .map(|d| Value::deserialize(d).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .filter(|v| !v.is_null())
        .collect()
}

#[test]
fn the_image_is_named_once_in_the_image_component() {
    let dir = deploy_dir();
    let component = &yaml(&dir.join("image/kustomization.yaml"))[0];
    assert_eq!(component["kind"], "Component");
    let set = component["images"].as_array().expect("images");
    assert_eq!(set.len(), 1, "{component}");
    assert_eq!(set[0]["name"], "kdrift");
    let full =
        format!("{}:{}", set[0]["newName"].as_str().expect("newName"), set[0]["newTag"].as_str().expect("newTag"));
    for (sub, reference) in [("", "image"), ("rebalance", "../image"), ("sessions", "../image")] {
        let k = &yaml(&dir.join(sub).join("kustomization.yaml"))[0];
        assert_eq!(k["components"], serde_json::json!([reference]), "deploy/{sub}/kustomization.yaml");
        let mut found = Vec::new();
        for r in k["resources"].as_array().expect("resources") {
            for doc in yaml(&dir.join(sub).join(r.as_str().expect("resource path"))) {
                images(&doc, &mut found);
            }
        }
        assert!(!found.is_empty() && found.iter().all(|i| i == "kdrift"), "deploy/{sub}: {found:?}");
        // What `kubectl apply -k` would send: the component's image everywhere.
        let Ok(out) = std::process::Command::new("kubectl").arg("kustomize").arg(dir.join(sub)).output() else {
            println!("skipped `kubectl kustomize deploy/{sub}`: kubectl is not installed");
            continue;
        };
        assert!(out.status.success(), "kubectl kustomize deploy/{sub}: {}", String::from_utf8_lossy(&out.stderr));
        let mut rendered = Vec::new();
        for doc in serde_yaml::Deserializer::from_str(&String::from_utf8_lossy(&out.stdout)) {
            images(&Value::deserialize(doc).expect("kustomize output"), &mut rendered);
        }
        assert_eq!(rendered, vec![full.clone(); found.len()], "deploy/{sub}");
    }
}
