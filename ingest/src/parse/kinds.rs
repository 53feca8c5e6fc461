//! The kind of a list item that does not say it. `kubectl cluster-info
//! dump` writes Lists whose items carry no `kind`: kubectl 1.8–1.13
//! printed Kubernetes' internal types (no `kind` on the List either, only
//! its `selfLink`), later versions print `<Kind>List` with kind-less items.
//! An item's kind comes, in this order, from the List's own kind
//! (`DeploymentList`), the List's `selfLink` (`/apis/extensions/v1beta1/
//! namespaces/web/deployments`), the file's name as `cluster-info dump`
//! writes it (`deployments.json`, `replication-controllers.json`, …:
//! [`RESOURCES`]) or, last, the item's shape ([`kind_from_shape`]).
//!
//! Kinds kdrift has no use for ([`UNUSED_KINDS`]: Services, Endpoints, …)
//! are recognised so that they are counted as skipped, not reported as
//! objects of unknown kind.

use serde_json::Value;

/// One API resource a dump may list.
#[derive(Debug, Clone, Copy)]
pub struct Resource {
    /// `Deployment`.
    pub kind: &'static str,
    /// The resource's name in API paths and `selfLink`s: `deployments`.
    pub plural: &'static str,
    /// Other file names (without ending) that hold a List of it: kubectl
    /// `cluster-info dump`'s `replication-controllers`, the hyphenated
    /// names some tools write (`replica-sets`).
    pub files: &'static [&'static str],
}

/// The resources recognised by List `selfLink` and file name. kubectl
/// `cluster-info dump` (pkg/kubectl/cmd/clusterinfo_dump.go from 1.8,
/// pkg/cmd/clusterinfo/clusterinfo_dump.go in kubernetes/kubectl) writes
/// `nodes.json` and, per namespace, `events`, `replication-controllers`,
/// `services`, `daemonsets`, `deployments`, `replicasets` and `pods`
/// (`.json`, or `.yaml` with `-o yaml` in later versions), plus each pod's
/// container logs in `NAMESPACE/POD/logs.txt`; the others are the names
/// `kubectl get RESOURCE -o json > RESOURCE.json` gives.
pub const RESOURCES: &[Resource] = &[
    Resource { kind: "Event", plural: "events", files: &[] },
    Resource { kind: "Pod", plural: "pods", files: &[] },
    Resource { kind: "Node", plural: "nodes", files: &[] },
    Resource { kind: "Deployment", plural: "deployments", files: &[] },
    Resource { kind: "ReplicaSet", plural: "replicasets", files: &["replica-sets"] },
    Resource { kind: "StatefulSet", plural: "statefulsets", files: &["stateful-sets"] },
    Resource { kind: "DaemonSet", plural: "daemonsets", files: &["daemon-sets"] },
    Resource { kind: "Job", plural: "jobs", files: &[] },
    Resource { kind: "CronJob", plural: "cronjobs", files: &["cron-jobs"] },
    Resource { kind: "ReplicationController", plural: "replicationcontrollers", files: &["replication-controllers"] },
    Resource {
        kind: "PodDisruptionBudget",
        plural: "poddisruptionbudgets",
        files: &["pod-disruption-budgets", "pdbs"],
    },
    Resource { kind: "Namespace", plural: "namespaces", files: &[] },
    Resource { kind: "PriorityClass", plural: "priorityclasses", files: &["priority-classes"] },
    Resource {
        kind: "PersistentVolumeClaim",
        plural: "persistentvolumeclaims",
        files: &["persistent-volume-claims", "pvcs"],
    },
    Resource { kind: "PersistentVolume", plural: "persistentvolumes", files: &["persistent-volumes", "pvs"] },
    Resource { kind: "LimitRange", plural: "limitranges", files: &["limit-ranges"] },
    Resource { kind: "ResourceQuota", plural: "resourcequotas", files: &["resource-quotas"] },
    Resource { kind: "Service", plural: "services", files: &[] },
    Resource { kind: "Endpoints", plural: "endpoints", files: &[] },
    Resource { kind: "EndpointSlice", plural: "endpointslices", files: &[] },
    Resource { kind: "ServiceAccount", plural: "serviceaccounts", files: &["service-accounts"] },
    Resource { kind: "Ingress", plural: "ingresses", files: &[] },
    Resource { kind: "ConfigMap", plural: "configmaps", files: &["config-maps"] },
    Resource { kind: "Secret", plural: "secrets", files: &[] },
];

/// Kinds kdrift reads nothing from (no analysis, no planner filter): counted
/// in [`super::Parsed::skipped`] and never stored, like the Secrets and
/// ConfigMaps of [`super::NOT_KEPT_KINDS`]. A `cluster-info dump` lists
/// every Service of each namespace (`services.json`).
pub const UNUSED_KINDS: [&str; 5] = ["Service", "Endpoints", "EndpointSlice", "ServiceAccount", "Ingress"];

/// The kind a resource name (`replicationcontrollers`) or a dump file name
/// without its ending (`replication-controllers`) stands for, any case.
pub fn kind_of_resource_name(name: &str) -> Option<&'static str> {
    let name = name.to_ascii_lowercase();
    RESOURCES.iter().find(|r| r.plural == name || r.files.contains(&name.as_str())).map(|r| r.kind)
}

/// The kind and the `apiVersion` a List's `selfLink` names:
/// `/apis/extensions/v1beta1/namespaces/web/deployments` gives
/// `("Deployment", "extensions/v1beta1")`, `/api/v1/nodes` gives
/// `("Node", "v1")`. `None` for a path of another shape or resource.
pub fn kind_of_self_link(link: &str) -> Option<(&'static str, String)> {
    let path = link.split(['?', '#']).next().unwrap_or(link);
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let api_version = match segments.as_slice() {
        ["api", version, ..] => (*version).to_string(),
        ["apis", group, version, ..] => format!("{group}/{version}"),
        _ => return None,
    };
    let kind = kind_of_resource_name(segments.last()?)?;
    Some((kind, api_version))
}

fn at<'a>(v: &'a Value, pointer: &str) -> Option<&'a Value> {
    v.pointer(pointer).filter(|x| !x.is_null())
}

fn has_any(v: &Value, pointers: &[&str]) -> bool {
    pointers.iter().any(|p| at(v, p).is_some())
}

/// The kind an object's shape shows (camelCase keys, after
/// [`super::legacy`] normalised an internal-type dump), for items whose
/// List and file name say nothing. Field sets from the API types
/// (k8s.io/api core/v1, apps/v1, batch/v1, policy/v1, scheduling/v1):
/// a pod template plus Job fields (`completions`, `backoffLimit`, …) is a
/// Job, plus `serviceName`/`volumeClaimTemplates` a StatefulSet, plus
/// DaemonSet status counts or an `updateStrategy` a DaemonSet, plus
/// `strategy`/`progressDeadlineSeconds` a Deployment, with a plain-map
/// selector a ReplicationController, else a ReplicaSet; a `jobTemplate` is
/// a CronJob; `minAvailable`/`maxUnavailable` or disruption counts a
/// PodDisruptionBudget; a top-level `value` a PriorityClass; a
/// cluster-scoped object with only `spec.finalizers` or phase
/// Active/Terminating a Namespace. `None` when nothing matches.
pub fn kind_from_shape(object: &Value) -> Option<&'static str> {
    let map = object.as_object()?;
    if map.contains_key("involvedObject") || map.contains_key("regarding") {
        return Some("Event");
    }
    if at(object, "/spec/containers").is_some() {
        return Some("Pod");
    }
    if at(object, "/spec/jobTemplate").is_some() {
        return Some("CronJob");
    }
    if at(object, "/spec/template").is_some() {
        return Some(workload_kind(object));
    }
    if has_any(object, &["/status/nodeInfo", "/status/allocatable", "/status/daemonEndpoints", "/spec/podCIDR"]) {
        return Some("Node");
    }
    if has_any(object, &["/spec/persistentVolumeReclaimPolicy", "/spec/claimRef", "/spec/capacity"]) {
        return Some("PersistentVolume");
    }
    if has_any(object, &["/spec/accessModes", "/spec/volumeName", "/spec/storageClassName"]) {
        return Some("PersistentVolumeClaim");
    }
    if has_any(
        object,
        &[
            "/spec/minAvailable",
            "/spec/maxUnavailable",
            "/status/disruptionsAllowed",
            "/status/podDisruptionsAllowed",
            "/status/expectedPods",
            "/status/disruptedPods",
        ],
    ) {
        return Some("PodDisruptionBudget");
    }
    if has_any(object, &["/spec/clusterIP", "/spec/ports", "/spec/externalName", "/spec/sessionAffinity"]) {
        return Some("Service");
    }
    if at(object, "/spec/limits").is_some_and(Value::is_array) {
        return Some("LimitRange");
    }
    if has_any(object, &["/spec/hard", "/status/hard"]) {
        return Some("ResourceQuota");
    }
    if map.contains_key("subsets") {
        return Some("Endpoints");
    }
    if map.contains_key("addressType") {
        return Some("EndpointSlice");
    }
    if map.get("value").is_some_and(Value::is_number) && !map.contains_key("spec") {
        return Some("PriorityClass");
    }
    if is_namespace(object) {
        return Some("Namespace");
    }
    if ["data", "stringData", "binaryData"].iter().any(|k| map.contains_key(*k)) {
        return Some(if map.get("type").is_some_and(Value::is_string) { "Secret" } else { "ConfigMap" });
    }
    if map.contains_key("secrets") || map.contains_key("automountServiceAccountToken") {
        return Some("ServiceAccount");
    }
    if at(object, "/status/capacity").is_some() {
        return Some("Node");
    }
    None
}

/// The controller of a pod template (`spec.template`), by the fields only it has.
fn workload_kind(object: &Value) -> &'static str {
    let job = [
        "/spec/completions",
        "/spec/parallelism",
        "/spec/backoffLimit",
        "/spec/activeDeadlineSeconds",
        "/spec/manualSelector",
        "/spec/ttlSecondsAfterFinished",
        "/spec/completionMode",
        "/status/succeeded",
        "/status/failed",
        "/status/startTime",
        "/status/completionTime",
    ];
    if has_any(object, &job) {
        return "Job";
    }
    let stateful = ["/spec/serviceName", "/spec/volumeClaimTemplates", "/spec/podManagementPolicy"];
    if has_any(object, &stateful) {
        return "StatefulSet";
    }
    let daemon = [
        "/spec/updateStrategy",
        "/spec/templateGeneration",
        "/status/desiredNumberScheduled",
        "/status/currentNumberScheduled",
        "/status/numberMisscheduled",
    ];
    if has_any(object, &daemon) {
        return "DaemonSet";
    }
    let deployment = [
        "/spec/strategy",
        "/spec/progressDeadlineSeconds",
        "/spec/paused",
        "/spec/rollbackTo",
        "/status/updatedReplicas",
        "/status/unavailableReplicas",
    ];
    if has_any(object, &deployment) {
        return "Deployment";
    }
    // core/v1 ReplicationController: `selector` is a plain label map;
    // apps/v1 ReplicaSet: a LabelSelector (`matchLabels`, `matchExpressions`).
    let plain_selector = at(object, "/spec/selector")
        .and_then(Value::as_object)
        .is_some_and(|s| !s.contains_key("matchLabels") && !s.contains_key("matchExpressions"));
    if plain_selector {
        "ReplicationController"
    } else {
        "ReplicaSet"
    }
}

/// A cluster-scoped object whose spec holds only `finalizers`, or whose
/// status phase is a Namespace's (`Active`, `Terminating`).
fn is_namespace(object: &Value) -> bool {
    let namespaced = at(object, "/metadata/namespace").and_then(Value::as_str).is_some_and(|n| !n.is_empty());
    if namespaced {
        return false;
    }
    let finalizers_only = at(object, "/spec")
        .and_then(Value::as_object)
        .is_some_and(|s| !s.is_empty() && s.keys().all(|k| k == "finalizers"));
    let phase = at(object, "/status/phase").and_then(Value::as_str);
    finalizers_only || matches!(phase, Some("Active" | "Terminating"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn resource_names_and_self_links() {
        assert_eq!(kind_of_resource_name("replication-controllers"), Some("ReplicationController"));
        assert_eq!(kind_of_resource_name("ReplicaSets"), Some("ReplicaSet"));
        assert_eq!(kind_of_resource_name("cron-jobs"), Some("CronJob"));
        assert_eq!(kind_of_resource_name("logs"), None);
        assert_eq!(
            kind_of_self_link("/apis/extensions/v1beta1/namespaces/web/deployments"),
            Some(("Deployment", "extensions/v1beta1".to_string()))
        );
        assert_eq!(kind_of_self_link("/api/v1/nodes"), Some(("Node", "v1".to_string())));
        assert_eq!(
            kind_of_self_link("/apis/batch/v1beta1/namespaces/x/cronjobs?limit=5"),
            Some(("CronJob", "batch/v1beta1".to_string()))
        );
        assert_eq!(kind_of_self_link("/apis/example.com/v1/widgets"), None);
        assert_eq!(kind_of_self_link("deployments"), None);
    }

    #[test]
    fn shapes_of_each_kind() {
        let template = json!({"metadata": {"labels": {"app": "a"}}, "spec": {"containers": [{"name": "c"}]}});
        let cases = [
            (json!({"spec": {"template": template, "backoffLimit": 6, "completions": 1}}), "Job"),
            (json!({"spec": {"jobTemplate": {"spec": {"template": template}}, "schedule": "*/5 * * * *"}}), "CronJob"),
            (json!({"spec": {"template": template, "serviceName": "db", "replicas": 3}}), "StatefulSet"),
            (json!({"spec": {"template": template, "updateStrategy": {"type": "OnDelete"}}}), "DaemonSet"),
            (json!({"spec": {"template": template}, "status": {"desiredNumberScheduled": 2}}), "DaemonSet"),
            (json!({"spec": {"template": template, "strategy": {"type": "Recreate"}, "replicas": 1}}), "Deployment"),
            (json!({"spec": {"template": template, "selector": {"app": "a"}, "replicas": 1}}), "ReplicationController"),
            (
                json!({"spec": {"template": template, "selector": {"matchLabels": {"app": "a"}}, "replicas": 1}}),
                "ReplicaSet",
            ),
            (json!({"spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "a"}}}}), "PodDisruptionBudget"),
            (json!({"metadata": {"name": "high"}, "value": 1000, "globalDefault": false}), "PriorityClass"),
            (json!({"metadata": {"name": "web"}, "spec": {"finalizers": ["kubernetes"]}}), "Namespace"),
            (json!({"metadata": {"name": "web"}, "status": {"phase": "Active"}}), "Namespace"),
            (json!({"spec": {"clusterIP": "10.0.0.1", "ports": [{"port": 80}]}}), "Service"),
            (json!({"subsets": []}), "Endpoints"),
            (json!({"data": {"k": "v"}}), "ConfigMap"),
            (json!({"type": "Opaque", "data": {"k": "dg=="}}), "Secret"),
            (
                json!({"spec": {"accessModes": ["ReadWriteOnce"]}, "status": {"capacity": {"storage": "1Gi"}}}),
                "PersistentVolumeClaim",
            ),
            (json!({"status": {"capacity": {"cpu": "2"}}}), "Node"),
            (json!({"spec": {"containers": []}}), "Pod"),
            (json!({"involvedObject": {}}), "Event"),
        ];
        for (object, kind) in cases {
            assert_eq!(kind_from_shape(&object), Some(kind), "{object}");
        }
        // A namespaced object with phase Active is not a Namespace.
        assert_eq!(kind_from_shape(&json!({"metadata": {"namespace": "x"}, "status": {"phase": "Active"}})), None);
        assert_eq!(kind_from_shape(&json!({"metadata": {"name": "x"}})), None);
    }
}
