//! The bench cluster ([`crate::bench_cluster`]) as a user would store it:
//! the kubectl Lists `kubectl get nodes -o json` and `kubectl get pods -A
//! -o json` write, and its policy as the YAML file `--policy` reads. The
//! input of the end-to-end plan benchmark (`cargo bench -p kdrift --bench
//! plan`, issue 39 item 4), where `kdrift ingest file` stores the Lists and
//! `kdrift rebalance plan` plans from the store (with
//! [`crate::bench_policy_yaml`]).
//!
//! Quantities are written as the API server normalises them: cpu in
//! millicores (`"150m"`), memory in bytes (`"268435456"`). One item per
//! line, so a List of 150,000 Pods (~90 MB) is written as it is generated.

use std::io::{self, Write};

use serde_json::{json, Map, Value};

use kdrift_rebalance::{NodeInfo, PodInfo, ResourceList, CPU};

use crate::BenchCluster;

/// Writes `cluster`'s nodes to `nodes` and its pods to `pods` as two kubectl
/// `List` documents (`apiVersion: v1`, one item per line).
///
/// # Errors
/// The writers' errors.
pub fn write_bench_cluster_lists(cluster: &BenchCluster, nodes: impl Write, pods: impl Write) -> io::Result<()> {
    let created = cluster.snapshot.now - chrono::Duration::days(30);
    write_list(nodes, cluster.snapshot.nodes.iter().enumerate().map(|(i, n)| node_json(n, i, created)))?;
    write_list(pods, cluster.snapshot.pods.iter().map(pod_json))
}

fn write_list(mut w: impl Write, items: impl Iterator<Item = Value>) -> io::Result<()> {
    w.write_all(b"{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[\n")?;
    for (i, item) in items.enumerate() {
        if i > 0 {
            w.write_all(b",\n")?;
        }
        serde_json::to_writer(&mut w, &item)?;
    }
    w.write_all(b"\n],\"metadata\":{\"resourceVersion\":\"\"}}\n")?;
    w.flush()
}

/// A quantity as the API server writes it: cpu in millicores, the rest
/// (memory bytes, pods) as plain integers.
fn quantities(list: &ResourceList) -> Value {
    let map: Map<String, Value> = list
        .iter()
        .map(|(name, v)| (name.to_string(), Value::String(if name == CPU { format!("{v}m") } else { v.to_string() })))
        .collect();
    Value::Object(map)
}

fn node_json(n: &NodeInfo, i: usize, created: chrono::DateTime<chrono::Utc>) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": n.name, "uid": format!("uid-node-{i}"), "resourceVersion": "1",
            "creationTimestamp": created.to_rfc3339(), "labels": n.labels},
        "spec": {},
        "status": {
            "capacity": quantities(&n.allocatable),
            "allocatable": quantities(&n.allocatable),
            "conditions": [{"type": "Ready", "status": "True"}],
        },
    })
}

fn pod_json(p: &PodInfo) -> Value {
    let containers: Vec<Value> = p
        .containers
        .iter()
        .map(|c| {
            let mut resources = Map::new();
            if !c.requests.is_empty() {
                resources.insert("requests".into(), quantities(&c.requests));
            }
            if !c.limits.is_empty() {
                resources.insert("limits".into(), quantities(&c.limits));
            }
            json!({"name": c.name, "image": "registry.example/app:1", "resources": resources})
        })
        .collect();
    let owners: Vec<Value> = p
        .owners
        .iter()
        .map(|o| {
            json!({"apiVersion": o.api_version, "kind": o.kind, "name": o.name, "uid": o.uid,
            "controller": o.controller})
        })
        .collect();
    let created = p.creation_timestamp.map(|t| t.to_rfc3339());
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": p.name, "namespace": p.namespace, "uid": p.uid, "resourceVersion": "1",
            "creationTimestamp": created, "labels": p.labels, "ownerReferences": owners},
        "spec": {"nodeName": p.node_name, "schedulerName": "default-scheduler", "priority": 0,
            "containers": containers},
        "status": {"phase": p.phase.map(|ph| ph.as_str()), "qosClass": p.qos.as_str(), "startTime": created},
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lists_hold_every_node_and_pod_with_their_requests() {
        let cluster = crate::bench_cluster(10, 6);
        let (mut nodes, mut pods) = (Vec::new(), Vec::new());
        write_bench_cluster_lists(&cluster, &mut nodes, &mut pods).expect("write");
        let nodes: Value = serde_json::from_slice(&nodes).expect("nodes json");
        let pods: Value = serde_json::from_slice(&pods).expect("pods json");
        assert_eq!(nodes["items"].as_array().map(Vec::len), Some(10));
        assert_eq!(pods["items"].as_array().map(Vec::len), Some(300));
        assert_eq!(
            nodes["items"][0]["status"]["allocatable"],
            json!({"cpu": "8000m", "memory": "34359738368", "pods": "110"})
        );
        let ds = &pods["items"][0];
        assert_eq!(ds["metadata"]["name"], "node-agent-00000");
        assert_eq!(ds["spec"]["containers"][0]["resources"]["requests"], json!({"cpu": "50m", "memory": "67108864"}));
        assert_eq!(ds["metadata"]["ownerReferences"][0]["kind"], "DaemonSet");
        let from_yaml = kdrift_rebalance::Policy::from_yaml(&crate::bench_policy_yaml(false)).expect("policy");
        assert_eq!(format!("{from_yaml:?}"), format!("{:?}", crate::bench_policy(false).expect("policy")));
    }
}
