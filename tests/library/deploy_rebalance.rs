//! `deploy/rebalance/rebalance-cronjob.yaml`: the nightly CronJob and what it needs,
//! read as Kubernetes would read it: least RBAC (read the planner's kinds,
//! create pods/eviction, nothing else), the homelab policy in the ConfigMap
//! equal to `examples/homelab-policy.yaml`, `rebalance run --policy … --yes`,
//! no overlapping runs, requests that fit on a full node.

use kdrift_rebalance::Policy;
use kdrift_rebalance::Quantity;
use serde::Deserialize;
use serde_yaml::Value;

const DEPLOY: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../deploy/rebalance/rebalance-cronjob.yaml"));
const KUSTOMIZATION: &str =
    include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../deploy/rebalance/kustomization.yaml"));
const HOMELAB: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/homelab-policy.yaml"));

fn documents() -> Vec<Value> {
    serde_yaml::Deserializer::from_str(DEPLOY)
        .map(|d| Value::deserialize(d).expect("valid YAML document"))
        .filter(|v| !v.is_null())
        .collect()
}

fn kind<'a>(docs: &'a [Value], kind: &str) -> &'a Value {
    let found: Vec<&Value> = docs.iter().filter(|d| d["kind"].as_str() == Some(kind)).collect();
    assert_eq!(found.len(), 1, "one {kind}");
    found[0]
}

fn strs(v: &Value) -> Vec<String> {
    v.as_sequence().map(|s| s.iter().filter_map(|x| x.as_str().map(str::to_string)).collect()).unwrap_or_default()
}

#[test]
fn the_cluster_role_reads_the_planners_kinds_and_creates_evictions_only() {
    let docs = documents();
    let role = kind(&docs, "ClusterRole");
    let mut grants: Vec<(String, String, String)> = Vec::new();
    for rule in role["rules"].as_sequence().expect("rules") {
        for group in strs(&rule["apiGroups"]) {
            for resource in strs(&rule["resources"]) {
                for verb in strs(&rule["verbs"]) {
                    grants.push((group.clone(), resource.clone(), verb));
                }
            }
        }
    }
    grants.sort();
    let mut expected: Vec<(String, String, String)> = Vec::new();
    for (group, resource) in [
        ("", "nodes"),
        ("", "pods"),
        ("", "namespaces"),
        ("policy", "poddisruptionbudgets"),
        ("scheduling.k8s.io", "priorityclasses"),
    ] {
        for verb in ["get", "list", "watch"] {
            expected.push((group.into(), resource.into(), verb.into()));
        }
    }
    expected.push(("".into(), "pods/eviction".into(), "create".into()));
    expected.sort();
    assert_eq!(grants, expected, "exactly these grants: no delete, no patch, no secrets");

    let sa = kind(&docs, "ServiceAccount");
    let binding = kind(&docs, "ClusterRoleBinding");
    assert_eq!(binding["roleRef"]["kind"].as_str(), Some("ClusterRole"));
    assert_eq!(binding["roleRef"]["name"], role["metadata"]["name"]);
    assert_eq!(binding["subjects"][0]["kind"].as_str(), Some("ServiceAccount"));
    assert_eq!(binding["subjects"][0]["name"], sa["metadata"]["name"]);
    assert_eq!(binding["subjects"][0]["namespace"], sa["metadata"]["namespace"]);
}

#[test]
fn the_config_map_holds_the_homelab_policy() {
    let docs = documents();
    let cm = kind(&docs, "ConfigMap");
    let text = cm["data"]["policy.yaml"].as_str().expect("data.policy.yaml");
    let deployed = Policy::from_yaml(text).expect("the deployed policy is valid");
    let example = Policy::from_yaml(HOMELAB).expect("the example policy is valid");
    assert_eq!(deployed, example, "deploy/ and examples/homelab-policy.yaml must say the same");
}

#[test]
fn the_cron_job_runs_the_policy_nightly_without_overlap_and_fits_on_a_full_node() {
    let docs = documents();
    let cj = kind(&docs, "CronJob");
    let sa = kind(&docs, "ServiceAccount");
    let cm = kind(&docs, "ConfigMap");
    assert_eq!(cj["metadata"]["namespace"], sa["metadata"]["namespace"]);
    assert_eq!(cj["spec"]["concurrencyPolicy"].as_str(), Some("Forbid"));
    assert_eq!(cj["spec"]["schedule"].as_str(), Some("0 2 * * *"));
    let job = &cj["spec"]["jobTemplate"]["spec"];
    assert_eq!(job["backoffLimit"].as_i64(), Some(0), "a failed run is not repeated by Kubernetes");
    let pod = &job["template"]["spec"];
    assert_eq!(pod["serviceAccountName"], sa["metadata"]["name"]);
    assert_eq!(pod["restartPolicy"].as_str(), Some("Never"));
    let containers = pod["containers"].as_sequence().expect("containers");
    assert_eq!(containers.len(), 1);
    let c = &containers[0];
    let args = strs(&c["args"]);
    assert_eq!(args[..5], ["rebalance", "run", "--policy", "/etc/kdrift/policy.yaml", "--yes"]);
    // The policy file comes from the ConfigMap.
    let mount = &c["volumeMounts"][0];
    assert_eq!(mount["mountPath"].as_str(), Some("/etc/kdrift"));
    let volume = pod["volumes"]
        .as_sequence()
        .and_then(|vs| vs.iter().find(|v| v["name"] == mount["name"]))
        .expect("the mounted volume");
    assert_eq!(volume["configMap"]["name"], cm["metadata"]["name"]);
    // Small enough to be scheduled on a node that is full on paper.
    let q = |v: &Value| Quantity::parse(v.as_str().expect("a quantity")).expect("valid quantity");
    let requests = &c["resources"]["requests"];
    assert!(q(&requests["cpu"]).milli_value().expect("cpu") <= 10, "{:?}", requests["cpu"]);
    assert!(q(&requests["memory"]).value().expect("memory") <= 32 * 1024 * 1024, "{:?}", requests["memory"]);
    assert!(c["resources"]["limits"]["cpu"].is_null(), "no CPU limit: no throttling of a short nightly run");
}

#[test]
fn the_kustomization_installs_the_file() {
    let k: Value = serde_yaml::from_str(KUSTOMIZATION).expect("kustomization");
    assert_eq!(strs(&k["resources"]), ["rebalance-cronjob.yaml"]);
}
