//! The parts of Pod and Node objects that the cluster model reads: what the
//! store keeps per pod and node version next to the whole object (schema v3,
//! `pod_versions.model`, `node_versions.model`), so that loading the cluster
//! at an instant (150,000 pods at 5,000 nodes) reads and parses a few hundred
//! bytes per pod instead of the whole object (managedFields, env, probes,
//! most of the container statuses, a node's image list: kilobytes each).
//! Since schema v16 a pod's model also keeps what descheduler's rule
//! plugins read (every condition cut to type, status, reason and time;
//! restarts and state reasons of each container status; app container
//! images; spread constraints): ~1,800 bytes for a demo pod, ~1,300 before.
//!
//! The rule: [`PodInfo::from_json`] on [`pod_model_fields`] of an object
//! gives the same pod as on the object itself, and [`NodeInfo::from_json`] on
//! [`node_model_fields`] the same node (tested on generated and real objects);
//! the pod's `PodScheduled` and `DisruptionTarget` conditions are kept whole
//! (with their `message`) for the analyses that ask when it was bound and
//! whether it was evicted. A field the model starts reading must be added
//! here too; the equality tests fail until it is. Stores written before a
//! field was added hold models without it: the store re-derives every
//! stored model from its whole object when such a store is opened (schema
//! v16, `kdrift-store`'s `Store::migrate`).

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
const SPEC: [&str; 11] = [
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
    "topologySpreadConstraints",
];

/// Container fields the model reads (of an app container, `image` too).
const CONTAINER: [&str; 3] = ["name", "restartPolicy", "resources"];

/// Volume sources the model tells apart (any other source is kept as an
/// empty object under its own key, which is all the model reads of it).
const VOLUME_SOURCES: [&str; 4] = ["hostPath", "emptyDir", "persistentVolumeClaim", "ephemeral"];

/// Status fields kept whole (conditions and container statuses are cut
/// down separately).
const STATUS: [&str; 5] = ["phase", "nominatedNodeName", "qosClass", "reason", "startTime"];

/// The pod conditions kept whole: when it was bound, and the eviction mark
/// (`DisruptionTarget`, Kubernetes ≥ 1.26, with its `message`) the drain
/// timeline reads. Of the others, [`CONDITION`]'s fields.
pub const KEPT_CONDITIONS: [&str; 2] = ["PodScheduled", "DisruptionTarget"];

/// Condition fields the model reads.
const CONDITION: [&str; 4] = ["type", "status", "reason", "lastTransitionTime"];

/// Container status fields the model reads whole (`state` is cut down to
/// `waiting.reason`, `terminated.reason` and `terminated.exitCode`).
const CONTAINER_STATUS: [&str; 2] = ["name", "restartCount"];

fn pick(from: &Map<String, Value>, keys: &[&str]) -> Map<String, Value> {
    keys.iter().filter_map(|k| from.get(*k).map(|v| (k.to_string(), v.clone()))).collect()
}

fn app_container(c: &Value) -> Value {
    let mut out = container(c);
    if let (Some(out), Some(image)) = (out.as_object_mut(), c.get("image")) {
        out.insert("image".into(), image.clone());
    }
    out
}

fn container(c: &Value) -> Value {
    let Some(m) = c.as_object() else { return c.clone() };
    let mut out = pick(m, &CONTAINER);
    // Only host ports take part in scheduling (NodePorts). Those before the
    // last host port stay as `{}` (read as no host port), so that an error
    // names the same `ports[i]` as on the whole object.
    if let Some(Value::Array(ports)) = m.get("ports") {
        if let Some(last) = ports.iter().rposition(|p| p.get("hostPort").is_some()) {
            let host = ports[..=last]
                .iter()
                .map(|p| if p.get("hostPort").is_some() { p.clone() } else { Value::Object(Map::new()) })
                .collect();
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

/// `m[key]` cut down by `f` when it is an object (as it is otherwise).
fn cut_object(
    m: &Map<String, Value>,
    key: &str,
    out: &mut Map<String, Value>,
    f: impl Fn(&Map<String, Value>) -> Value,
) {
    match m.get(key) {
        Some(Value::Object(o)) => {
            out.insert(key.into(), f(o));
        }
        Some(other) => {
            out.insert(key.into(), other.clone());
        }
        None => {}
    }
}

fn condition(c: &Value) -> Value {
    let Some(m) = c.as_object() else { return c.clone() };
    if m.get("type").and_then(Value::as_str).is_some_and(|t| KEPT_CONDITIONS.contains(&t)) {
        return c.clone();
    }
    Value::Object(pick(m, &CONDITION))
}

fn container_status(c: &Value) -> Value {
    let Some(m) = c.as_object() else { return c.clone() };
    let mut out = pick(m, &CONTAINER_STATUS);
    cut_object(m, "state", &mut out, |state| {
        let mut s = Map::new();
        cut_object(state, "waiting", &mut s, |w| Value::Object(pick(w, &["reason"])));
        cut_object(state, "terminated", &mut s, |t| Value::Object(pick(t, &["reason", "exitCode"])));
        Value::Object(s)
    });
    Value::Object(out)
}

fn list(v: &Value, f: fn(&Value) -> Value) -> Value {
    match v {
        Value::Array(items) => Value::Array(items.iter().map(f).collect()),
        other => other.clone(),
    }
}

/// The fields of Pod object `pod` that [`PodInfo::from_json`] reads, plus
/// the whole [`KEPT_CONDITIONS`]. A value that
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
                for (key, cut) in [("containers", app_container as fn(&Value) -> Value), ("initContainers", container)]
                {
                    if let Some(v) = m.get(key) {
                        s.insert(key.into(), list(v, cut));
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
                if let Some(v) = m.get("conditions") {
                    s.insert("conditions".into(), list(v, condition));
                }
                for key in ["containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"] {
                    if let Some(v) = m.get(key) {
                        s.insert(key.into(), list(v, container_status));
                    }
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
                "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                    "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "web"}},
                    "minDomains": 2, "nodeAffinityPolicy": "Ignore", "nodeTaintsPolicy": "Honor",
                    "matchLabelKeys": ["pod-template-hash"]}],
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
                "reason": "Evicted", "startTime": "2026-11-01T00:00:02Z", "hostIP": "10.0.0.1",
                "conditions": [
                    {"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-01T00:00:05Z",
                     "lastProbeTime": null, "message": "all ready"},
                    {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-11-01T00:00:01Z",
                     "message": "kept whole"}
                ],
                "containerStatuses": [{"name": "app", "ready": true, "restartCount": 7, "image": "web:1",
                    "imageID": "sha256:abc", "containerID": "containerd://x",
                    "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s"}},
                    "lastState": {"terminated": {"reason": "OOMKilled", "exitCode": 137}}}],
                "initContainerStatuses": [{"name": "proxy", "restartCount": "2",
                    "state": {"terminated": {"reason": "Completed", "exitCode": 0, "startedAt": "2026-11-01T00:00:03Z"}}}],
                "ephemeralContainerStatuses": [{"name": "debug", "state": {"running": {"startedAt": "2026-11-01T00:00:04Z"}}}]
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
        assert_eq!(info.rare.host_ports.len(), 2);
        assert_eq!(info.pvc_names(), vec!["data-web-1"]);
        // What the rule plugins read is kept (and read from the cut).
        assert_eq!(info.images, vec!["web:1"]);
        assert_eq!(info.rare.topology_spread_constraints[0].match_label_keys, vec!["pod-template-hash"]);
        let status = info.status();
        assert_eq!(status.reason.as_deref(), Some("Evicted"));
        assert_eq!(info.start_time.map(|t| t.to_rfc3339()).as_deref(), Some("2026-11-01T00:00:02+00:00"));
        assert_eq!(status.conditions.iter().map(|c| c.type_.as_str()).collect::<Vec<_>>(), ["Ready", "PodScheduled"]);
        assert_eq!(
            (status.containers[0].restart_count, status.containers[0].waiting_reason.as_deref()),
            (7, Some("CrashLoopBackOff"))
        );
        let proxy = &status.init_containers[0];
        assert_eq!(
            (proxy.restart_count, proxy.terminated_reason.as_deref(), proxy.terminated_exit_code),
            (2, Some("Completed"), Some(0))
        );
        assert_eq!(status.ephemeral_containers[0].name, "debug");
        // What is dropped: managedFields, env, other status fields, the rest
        // of container statuses, other conditions' messages.
        assert!(cut.pointer("/metadata/managedFields").is_none());
        assert!(cut.pointer("/spec/containers/0/env").is_none());
        assert!(cut.pointer("/spec/initContainers/0/image").is_none());
        assert!(cut.pointer("/status/hostIP").is_none());
        assert_eq!(
            cut.pointer("/status/containerStatuses"),
            Some(&json!([{"name": "app", "restartCount": 7, "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]))
        );
        assert_eq!(
            cut.pointer("/status/initContainerStatuses/0/state"),
            Some(&json!({"terminated": {"reason": "Completed", "exitCode": 0}}))
        );
        assert_eq!(cut.pointer("/status/ephemeralContainerStatuses/0"), Some(&json!({"name": "debug", "state": {}})));
        assert_eq!(
            cut.pointer("/status/conditions/0"),
            Some(&json!({"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-01T00:00:05Z"}))
        );
        assert_eq!(cut.pointer("/status/conditions/1/message"), Some(&json!("kept whole")));
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
            // Found by the random pods: the error names ports[1], not ports[0].
            json!({"metadata": {"name": "x"}, "spec": {"initContainers": [{"ports": [
                {"containerPort": 1}, {"hostPort": 80, "protocol": 3}, {"containerPort": 2}]}]}}),
            json!({"metadata": {"name": "x"}, "spec": "nope"}),
            json!({"metadata": {"name": "x"}, "status": {"conditions": 3, "phase": "Nope"}}),
            json!({"metadata": {"name": "x"}, "status": {"conditions": 3}}),
            json!({"metadata": {"name": "x"}, "status": {"conditions": ["Ready"]}}),
            json!({"metadata": {"name": "x"}, "status": {"conditions": [{"type": "Ready", "lastTransitionTime": "soon"}]}}),
            json!({"metadata": {"name": "x"}, "status": {"startTime": 5}}),
            json!({"metadata": {"name": "x"}, "status": {"containerStatuses": [{"restartCount": "many"}]}}),
            json!({"metadata": {"name": "x"}, "status": {"containerStatuses": [{"state": "running"}]}}),
            json!({"metadata": {"name": "x"}, "status": {"initContainerStatuses": [{"state": {"waiting": 1}}]}}),
            json!({"metadata": {"name": "x"}, "status": {"ephemeralContainerStatuses": [{"state": {"terminated": {"exitCode": 1.5}}}]}}),
            json!({"metadata": {"name": "x"}, "status": {"containerStatuses": {"name": "a"}}}),
            json!({"metadata": {"name": "x"}, "spec": {"containers": [{"image": 3}]}}),
            json!({"metadata": {"name": "x"}, "spec": {"topologySpreadConstraints": [{"maxSkew": "one"}]}}),
            json!([1, 2]),
        ] {
            assert!(pod_model_fields_agree(&bad), "{bad}");
            assert!(PodInfo::from_json(&bad).is_err(), "{bad}");
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
