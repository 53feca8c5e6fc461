//! The parts of Pod and Node objects that the cluster model reads: what the
//! store keeps per pod and node version next to the whole object (schema v3,
//! `pod_versions.model`, `node_versions.model`), so that loading the cluster
//! at an instant (150,000 pods at 5,000 nodes) reads and parses a few hundred
//! bytes per pod instead of the whole object (managedFields, env, probes,
//! container statuses, a node's image list: kilobytes each).
//!
//! The rule: [`PodInfo::from_json`] on [`pod_model_fields`] of an object
//! gives the same pod as on the object itself, and [`NodeInfo::from_json`] on
//! [`node_model_fields`] the same node (tested on generated and real objects);
//! the pod's `PodScheduled` and `DisruptionTarget` conditions are kept for
//! the analyses that ask when it was bound and whether it was evicted. A field the model starts reading must be added here too; the
//! equality tests fail until it is.

use serde_json::{Map, Value};

use crate::model::node::NodeInfo;
use crate::model::pod::PodInfo;

/// Metadata fields kept whole.
const METADATA: [&str; 9] = [
    "namespace",
    "name",
    "uid",
    "resourceVersion",
    "labels",
    "annotations",
    "creationTimestamp",
    "deletionTimestamp",
    "ownerReferences",
];

/// Spec fields kept whole (containers and volumes are cut down separately).
const SPEC: [&str; 10] = [
    "nodeName",
    "schedulerName",
    "priority",
    "priorityClassName",
    "resources",
    "overhead",
    "nodeSelector",
    "affinity",
    "tolerations",
    "restartPolicy",
];

/// Container fields the model reads.
const CONTAINER: [&str; 3] = ["name", "restartPolicy", "resources"];

/// Volume sources the model tells apart (any other source is kept as an
/// empty object under its own key, which is all the model reads of it).
const VOLUME_SOURCES: [&str; 4] = ["hostPath", "emptyDir", "persistentVolumeClaim", "ephemeral"];

/// Status fields kept whole (conditions: only [`KEPT_CONDITIONS`]).
const STATUS: [&str; 3] = ["phase", "nominatedNodeName", "qosClass"];

/// The pod conditions kept: when it was bound, and the eviction mark
/// (`DisruptionTarget`, Kubernetes ≥ 1.26) the drain timeline reads.
pub const KEPT_CONDITIONS: [&str; 2] = ["PodScheduled", "DisruptionTarget"];

fn pick(from: &Map<String, Value>, keys: &[&str]) -> Map<String, Value> {
    keys.iter().filter_map(|k| from.get(*k).map(|v| (k.to_string(), v.clone()))).collect()
}

fn container(c: &Value) -> Value {
    let Some(m) = c.as_object() else { return c.clone() };
    let mut out = pick(m, &CONTAINER);
    // Only host ports take part in scheduling (NodePorts).
    if let Some(Value::Array(ports)) = m.get("ports") {
        let host: Vec<Value> = ports.iter().filter(|p| p.get("hostPort").is_some()).cloned().collect();
        if !host.is_empty() {
            out.insert("ports".into(), Value::Array(host));
        }
    } else if let Some(other) = m.get("ports") {
        // Not an array: kept, so that the model reports it as it would.
        out.insert("ports".into(), other.clone());
    }
    Value::Object(out)
}

fn volume(v: &Value) -> Value {
    let Some(m) = v.as_object() else { return v.clone() };
    let mut out = Map::new();
    if let Some(name) = m.get("name") {
        out.insert("name".into(), name.clone());
    }
    match VOLUME_SOURCES.iter().find(|k| m.get(**k).is_some_and(|s| !s.is_null())) {
        Some(k) => {
            out.insert(k.to_string(), m[*k].clone());
        }
        None => {
            if let Some((k, _)) = m.iter().find(|(k, v)| k.as_str() != "name" && !v.is_null()) {
                out.insert(k.clone(), Value::Object(Map::new()));
            }
        }
    }
    Value::Object(out)
}

fn list(v: &Value, f: fn(&Value) -> Value) -> Value {
    match v {
        Value::Array(items) => Value::Array(items.iter().map(f).collect()),
        other => other.clone(),
    }
}

/// The fields of Pod object `pod` that [`PodInfo::from_json`] reads, plus
/// `status.conditions` reduced to [`KEPT_CONDITIONS`]. A value that
/// is not an object, or a section that is not an object, is returned as it is
/// (so the model reports the same error on it).
pub fn pod_model_fields(pod: &Value) -> Value {
    let Some(top) = pod.as_object() else { return pod.clone() };
    let mut out = pick(top, &["apiVersion", "kind"]);
    if let Some(meta) = top.get("metadata") {
        out.insert(
            "metadata".into(),
            meta.as_object().map_or_else(|| meta.clone(), |m| Value::Object(pick(m, &METADATA))),
        );
    }
    if let Some(spec) = top.get("spec") {
        let cut = spec.as_object().map_or_else(
            || spec.clone(),
            |m| {
                let mut s = pick(m, &SPEC);
                for key in ["containers", "initContainers"] {
                    if let Some(v) = m.get(key) {
                        s.insert(key.into(), list(v, container));
                    }
                }
                if let Some(v) = m.get("volumes") {
                    s.insert("volumes".into(), list(v, volume));
                }
                Value::Object(s)
            },
        );
        out.insert("spec".into(), cut);
    }
    if let Some(status) = top.get("status") {
        let cut = status.as_object().map_or_else(
            || status.clone(),
            |m| {
                let mut s = pick(m, &STATUS);
                match m.get("conditions") {
                    Some(Value::Array(conds)) => {
                        let kept: Vec<Value> = conds
                            .iter()
                            .filter(|c| {
                                c.get("type").and_then(Value::as_str).is_some_and(|t| KEPT_CONDITIONS.contains(&t))
                            })
                            .cloned()
                            .collect();
                        if !kept.is_empty() {
                            s.insert("conditions".into(), Value::Array(kept));
                        }
                    }
                    Some(other) => {
                        s.insert("conditions".into(), other.clone());
                    }
                    None => {}
                }
                Value::Object(s)
            },
        );
        out.insert("status".into(), cut);
    }
    Value::Object(out)
}

/// Node metadata fields kept.
const NODE_METADATA: [&str; 2] = ["name", "labels"];

/// Node status fields kept (not `images`, `addresses`, …; `nodeInfo` for
/// its `bootID`, which the drain timeline reads to see reboots).
const NODE_STATUS: [&str; 4] = ["capacity", "allocatable", "conditions", "nodeInfo"];

/// The fields of Node object `node` that [`NodeInfo::from_json`] reads: name
/// and labels, the whole (small) spec, capacity, allocatable and conditions;
/// plus `status.nodeInfo` (the boot id marks reboots).
/// A value or section that is not an object is returned as it is.
pub fn node_model_fields(node: &Value) -> Value {
    let Some(top) = node.as_object() else { return node.clone() };
    let mut out = pick(top, &["apiVersion", "kind", "spec"]);
    for (key, keep) in [("metadata", &NODE_METADATA[..]), ("status", &NODE_STATUS[..])] {
        if let Some(section) = top.get(key) {
            let cut = section.as_object().map_or_else(|| section.clone(), |m| Value::Object(pick(m, keep)));
            out.insert(key.into(), cut);
        }
    }
    Value::Object(out)
}

/// The model fields of a Pod or Node object (`None` for other kinds): what
/// the store writes in the `model` column.
pub fn model_fields(kind: &str, object: &Value) -> Option<Value> {
    match kind {
        "Pod" => Some(pod_model_fields(object)),
        "Node" => Some(node_model_fields(object)),
        _ => None,
    }
}

/// Whether `pod_model_fields` keeps everything the model reads of `pod`:
/// [`PodInfo::from_json`] gives the same result (pod or error text) on both.
pub fn pod_model_fields_agree(pod: &Value) -> bool {
    let whole = PodInfo::from_json(pod).map_err(|e| e.to_string());
    let cut = PodInfo::from_json(&pod_model_fields(pod)).map_err(|e| e.to_string());
    whole == cut
}

/// Whether `node_model_fields` keeps everything the model reads of `node`.
pub fn node_model_fields_agree(node: &Value) -> bool {
    let whole = NodeInfo::from_json(node).map_err(|e| e.to_string());
    let cut = NodeInfo::from_json(&node_model_fields(node)).map_err(|e| e.to_string());
    whole == cut
}

/// What a pod version adds to its node's requested amounts, as the store
/// keeps it per version (schema v4 columns of `pod_versions`), so that
/// "requested per node at T" is one SQL aggregate instead of parsing every
/// pod (kdrift issue 6).
///
/// The amounts are [`PodInfo::requests`] (descheduler v0.36 §1: the larger
/// of the app containers' sum and each init container, sidecars, overhead,
/// pod-level requests) in the units of `crate::model::resources`: cpu in
/// millicores, memory in bytes, others in their own units.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodUsageFields {
    /// The node the pod counts toward ([`PodInfo::counts_toward_usage`]:
    /// bound and not Succeeded/Failed); `None` when it counts toward none.
    pub usage_node: Option<String>,
    /// Requested cpu, millicores.
    pub cpu: i64,
    /// Requested memory, bytes.
    pub memory: i64,
    /// Every other requested resource (`ephemeral-storage`, `hugepages-*`,
    /// extended resources) as a JSON object of integers, `None` when there is
    /// none.
    pub other: Option<String>,
    /// `metadata.labels` as a JSON object of strings (`None` when the pod
    /// has none): what inter-pod affinity terms select on (schema v10
    /// `pod_versions.labels`; `crate::model::pod::filter_fields`).
    pub labels: Option<String>,
    /// Whether the scheduler's filters read more of this pod, as an existing
    /// pod, than its requests, node and labels: host ports or inter-pod
    /// (anti-)affinity terms (`crate::model::pod::filter_fields::has_scheduling_terms`;
    /// schema v10 `pod_versions.scheduling_terms`).
    pub scheduling_terms: bool,
}

/// The [`PodUsageFields`] of a pod object (whole, or its `pod_model_fields`:
/// the same result).
///
/// # Errors
/// The model's message when [`PodInfo::from_json`] cannot read the pod (the
/// store keeps it as `model_error`; the pod is then left out of the state at
/// an instant and listed as unreadable).
pub fn pod_usage_fields(pod: &Value) -> Result<PodUsageFields, String> {
    let info = PodInfo::from_json(pod).map_err(|e| e.to_string())?;
    let mut other = Map::new();
    for (name, amount) in info.requests.iter() {
        if name != crate::model::resources::CPU && name != crate::model::resources::MEMORY {
            other.insert(name.to_string(), Value::from(amount));
        }
    }
    Ok(PodUsageFields {
        usage_node: if info.counts_toward_usage() { info.node_name.clone() } else { None },
        cpu: info.requests.get(crate::model::resources::CPU),
        memory: info.requests.get(crate::model::resources::MEMORY),
        other: (!other.is_empty()).then(|| Value::Object(other).to_string()),
        labels: crate::model::pod::filter_fields::labels_text(&info),
        scheduling_terms: crate::model::pod::filter_fields::has_scheduling_terms(&info),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn full_pod() -> Value {
        json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {
                "name": "web-1", "namespace": "shop", "uid": "u1", "resourceVersion": "42",
                "labels": {"app": "web"}, "annotations": {"descheduler.alpha.kubernetes.io/evict": "true"},
                "creationTimestamp": "2026-11-01T00:00:00Z",
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7d", "uid": "rs", "controller": true}],
                "managedFields": [{"manager": "kube-controller-manager", "fieldsV1": {"f:metadata": {}}}]
            },
            "spec": {
                "nodeName": "node-1", "priority": 1000, "priorityClassName": "high", "schedulerName": "default-scheduler",
                "containers": [{
                    "name": "app", "image": "web:1", "env": [{"name": "A", "value": "b"}],
                    "resources": {"requests": {"cpu": "250m", "memory": "128Mi"}, "limits": {"memory": "256Mi"}},
                    "ports": [{"containerPort": 8080}, {"containerPort": 9090, "hostPort": 9090, "protocol": "TCP"}]
                }],
                "initContainers": [{"name": "proxy", "restartPolicy": "Always", "resources": {"requests": {"cpu": "50m"}},
                                    "ports": [{"containerPort": 15001, "hostPort": 15001}]}],
                "overhead": {"cpu": "10m"},
                "nodeSelector": {"disk": "ssd"},
                "tolerations": [{"key": "k", "operator": "Exists"}],
                "affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}]}},
                "volumes": [
                    {"name": "data", "persistentVolumeClaim": {"claimName": "data-web-1"}},
                    {"name": "tmp", "emptyDir": {}},
                    {"name": "token", "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]}}
                ]
            },
            "status": {
                "phase": "Running", "qosClass": "Burstable",
                "conditions": [
                    {"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-01T00:00:05Z"},
                    {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-11-01T00:00:01Z"}
                ],
                "containerStatuses": [{"name": "app", "ready": true, "restartCount": 0}]
            }
        })
    }

    #[test]
    fn the_model_reads_the_same_pod_from_the_fields() {
        let pod = full_pod();
        let cut = pod_model_fields(&pod);
        assert!(pod_model_fields_agree(&pod));
        let info = PodInfo::from_json(&cut).expect("pod");
        assert_eq!(info.requests.get("cpu"), 250 + 50 + 10);
        assert_eq!(info.host_ports.len(), 2);
        assert_eq!(info.pvc_names(), vec!["data-web-1"]);
        // What is dropped: managedFields, env, image, container statuses, other conditions.
        assert!(cut.pointer("/metadata/managedFields").is_none());
        assert!(cut.pointer("/spec/containers/0/env").is_none());
        assert!(cut.pointer("/status/containerStatuses").is_none());
        assert_eq!(cut.pointer("/status/conditions").and_then(Value::as_array).map(Vec::len), Some(1));
        assert_eq!(cut.pointer("/spec/volumes/2"), Some(&json!({"name": "token", "projected": {}})));
        assert!(cut.to_string().len() < pod.to_string().len());
    }

    #[test]
    fn usage_fields_are_the_effective_requests_and_the_node_counted() {
        let mut pod = full_pod();
        pod["spec"]["containers"][0]["resources"]["requests"]["gpu.intel.com/i915"] = json!("1");
        pod["spec"]["containers"][0]["resources"]["limits"]["gpu.intel.com/i915"] = json!("1");
        let fields = pod_usage_fields(&pod_model_fields(&pod)).expect("readable");
        assert_eq!(fields, pod_usage_fields(&pod).expect("readable"));
        // 250m app + 50m sidecar + 10m overhead; 128 MiB.
        assert_eq!((fields.cpu, fields.memory), (310, 128 * 1024 * 1024));
        assert_eq!(fields.usage_node.as_deref(), Some("node-1"));
        assert_eq!(fields.other.as_deref(), Some(r#"{"gpu.intel.com/i915":1}"#));
        assert_eq!(fields.labels.as_deref(), Some(r#"{"app":"web"}"#));
        assert!(fields.scheduling_terms, "host ports and a required pod affinity term");
        pod["status"]["phase"] = json!("Succeeded");
        assert_eq!(pod_usage_fields(&pod).expect("readable").usage_node, None, "a terminal pod counts nowhere");
        pod["spec"]["containers"] = json!("not a list");
        assert!(pod_usage_fields(&pod).is_err());
    }

    #[test]
    fn bad_sections_give_the_same_error() {
        for bad in [
            json!({"metadata": {"name": "x"}, "spec": {"containers": "nope"}}),
            json!({"metadata": {"name": "x"}, "spec": {"containers": [{"name": "a", "ports": 3}]}}),
            json!({"metadata": {"name": "x"}, "spec": "nope"}),
            json!({"metadata": {"name": "x"}, "status": {"conditions": 3, "phase": "Nope"}}),
            json!([1, 2]),
        ] {
            assert!(pod_model_fields_agree(&bad), "{bad}");
        }
    }

    #[test]
    fn the_model_reads_the_same_node_from_the_fields() {
        let node = json!({
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "node-1", "labels": {"zone": "a"}, "managedFields": [{"manager": "kubelet"}]},
            "spec": {"unschedulable": true, "taints": [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]},
            "status": {
                "capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"},
                "allocatable": {"cpu": "7800m", "memory": "31Gi", "pods": "110"},
                "conditions": [{"type": "Ready", "status": "True"}],
                "images": [{"names": ["registry/app:1"], "sizeBytes": 123456789}]
            }
        });
        let cut = node_model_fields(&node);
        assert!(node_model_fields_agree(&node));
        assert!(cut.pointer("/status/images").is_none());
        assert!(cut.pointer("/metadata/managedFields").is_none());
        let info = NodeInfo::from_json(&cut).expect("node");
        assert_eq!(info.allocatable.get("cpu"), 7800);
        assert!(info.unschedulable);
        assert!(node_model_fields_agree(&json!({"metadata": {"name": "x"}, "status": {"capacity": 3}})));
        assert_eq!(model_fields("Event", &node), None);
    }
}
