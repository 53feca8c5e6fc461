//! `deploy/sessions/sessions-annotate.yaml`: `kdrift sessions annotate
//! --every 1m` in-cluster, read as Kubernetes would read it: least RBAC (get,
//! list and patch pods, nothing else), bound to the Deployment's service
//! account, the store on its own claim.

use serde::Deserialize;
use serde_yaml::Value;

const DEPLOY: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../deploy/sessions/sessions-annotate.yaml"));
const KUSTOMIZATION: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../deploy/sessions/kustomization.yaml"));

fn kind(kind: &str) -> Value {
    let found: Vec<Value> = serde_yaml::Deserializer::from_str(DEPLOY)
        .map(|d| Value::deserialize(d).expect("valid YAML document"))
        .filter(|d| d["kind"].as_str() == Some(kind))
        .collect();
    assert_eq!(found.len(), 1, "one {kind}");
    found[0].clone()
}

fn strs(v: &Value) -> Vec<String> {
    v.as_sequence().map(|s| s.iter().filter_map(|x| x.as_str().map(str::to_string)).collect()).unwrap_or_default()
}

#[test]
fn the_annotator_may_get_list_and_patch_pods_only_and_runs_every_minute_into_its_own_store() {
    let mut grants = Vec::new();
    for rule in kind("ClusterRole")["rules"].as_sequence().expect("rules") {
        for group in strs(&rule["apiGroups"]) {
            for resource in strs(&rule["resources"]) {
                for verb in strs(&rule["verbs"]) {
                    grants.push(format!("{group}/{resource}:{verb}"));
                }
            }
        }
    }
    assert_eq!(grants, ["/pods:get", "/pods:list", "/pods:patch"]);
    let binding = kind("ClusterRoleBinding");
    assert_eq!(binding["roleRef"]["name"].as_str(), Some("kdrift-sessions"));
    assert_eq!(binding["subjects"][0]["name"].as_str(), Some("kdrift-sessions"));
    let pod = &kind("Deployment")["spec"]["template"]["spec"];
    assert_eq!(pod["serviceAccountName"].as_str(), Some("kdrift-sessions"));
    let args = strs(&pod["containers"][0]["args"]);
    assert_eq!(args[..7], ["--db", "/data/kdrift.duckdb", "sessions", "annotate", "--every", "1m", "--probe"]);
    assert_eq!(pod["volumes"][0]["persistentVolumeClaim"]["claimName"].as_str(), Some("kdrift-sessions-store"));
    assert_eq!(kind("PersistentVolumeClaim")["metadata"]["name"].as_str(), Some("kdrift-sessions-store"));
    assert!(KUSTOMIZATION.contains("- sessions-annotate.yaml"));
}
