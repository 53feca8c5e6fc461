//! The few fields of a pod that kube-scheduler's filters read when the pod
//! is an *existing* pod on a node (not the one being scheduled), kept per
//! pod version by the store (schema v10: `pod_versions.labels`,
//! `pod_versions.scheduling_terms`, next to the v4 requested amounts), so
//! that evaluating one pending pod against a 150,000-pod cluster reads a few
//! short columns per pod instead of parsing every pod's model (kdrift issue 6).
//!
//! What the modelled Filter plugins read of an existing pod
//! ([`crate::scheduler`]): the node it counts toward and its effective
//! requests (NodeResourcesFit, and the `pods` count), its host ports
//! (NodePorts), its namespace and labels (the incoming pod's required
//! inter-pod (anti-)affinity terms select on them), and its own required
//! anti-affinity terms (InterPodAffinity `getExistingAntiAffinityCounts`).
//! A pod with host ports or any inter-pod term ([`has_scheduling_terms`])
//! must be read whole; every other pod can be [`pod_for_filters`]: the same
//! filter verdicts on every node (tested against whole pods on the demo, the
//! real dumps and generated clusters).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::model::pod::PodInfo;
use crate::model::resources::{ResourceList, CPU, MEMORY};
use crate::scheduler::has_pod_affinity_terms;

/// `metadata.labels` as JSON object text (`{"app":"web"}`, keys in order),
/// `None` when the pod has no label.
pub fn labels_text(pod: &PodInfo) -> Option<String> {
    (!pod.labels.is_empty()).then(|| serde_json::to_string(&pod.labels).unwrap_or_default())
}

/// Whether the filters read more of `pod`, as an existing pod, than its
/// node, requests, namespace and labels: it has host ports (NodePorts) or an
/// inter-pod affinity or anti-affinity term, required or preferred (only
/// required anti-affinity takes part in filtering; preferred terms are
/// counted too so that one flag also serves the scores).
pub fn has_scheduling_terms(pod: &PodInfo) -> bool {
    !pod.rare.host_ports.is_empty() || has_pod_affinity_terms(pod)
}

/// One stored pod version's filter fields (`pod_versions` columns).
#[derive(Debug, Clone, Copy)]
pub struct FilterFields<'a> {
    /// `namespace` (`""` reads as `default`, as in the model).
    pub namespace: &'a str,
    /// `name`.
    pub name: &'a str,
    /// `uid` (`None` or `""` when the version has none).
    pub uid: Option<&'a str>,
    /// `usage_node`: the node the pod counts toward (bound, not
    /// Succeeded/Failed); `None` when it counts toward none.
    pub node: Option<&'a str>,
    /// `requests_cpu`, millicores.
    pub cpu: i64,
    /// `requests_memory`, bytes.
    pub memory: i64,
    /// `requests_other`: other requested resources, JSON object of integers.
    pub other: Option<&'a str>,
    /// `labels`: JSON object of strings.
    pub labels: Option<&'a str>,
}

/// A pod that carries only what the filters read of an existing pod without
/// `has_scheduling_terms`: namespace, name, uid, the node it counts toward
/// (`spec.nodeName`; phase left unknown, so it counts while bound), its
/// effective requests and its labels. Everything else is empty (no
/// containers, owners, priority or tolerations; QoS BestEffort; no non-zero
/// requests): such a pod answers the filters, not the scores, the evictor or
/// the reports — load the pod whole for those.
///
/// cpu and memory are set when non-zero (a whole pod may also hold an
/// explicit 0 entry; no filter tells the two apart).
///
/// # Errors
/// A message naming the column when `other` or `labels` is not the JSON
/// object it should be (the caller then reads the pod whole).
pub fn pod_for_filters(f: &FilterFields<'_>) -> Result<PodInfo, String> {
    // As `PodInfo::from_json`: no namespace reads as `default`, an empty uid as none.
    let namespace = if f.namespace.is_empty() { "default" } else { f.namespace };
    let mut pod = PodInfo::new(namespace, f.name);
    pod.uid = f.uid.filter(|u| !u.is_empty()).map(str::to_string);
    pod.node_name = f.node.map(str::to_string);
    pod.phase = None;
    let mut requests = ResourceList::new();
    if f.cpu != 0 {
        requests.set(CPU, f.cpu);
    }
    if f.memory != 0 {
        requests.set(MEMORY, f.memory);
    }
    if let Some(other) = f.other {
        let amounts: BTreeMap<String, Value> =
            serde_json::from_str(other).map_err(|e| format!("requests_other {other:?}: {e}"))?;
        for (resource, amount) in amounts {
            let amount =
                amount.as_i64().ok_or_else(|| format!("requests_other.{resource}: {amount} is not an integer"))?;
            requests.set(&resource, amount);
        }
    }
    pod.requests = requests;
    if let Some(labels) = f.labels {
        pod.labels = serde_json::from_str(labels).map_err(|e| format!("labels {labels:?}: {e}"))?;
    }
    Ok(pod)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn whole(spec: Value) -> PodInfo {
        PodInfo::from_json(&json!({
            "metadata": {"name": "web-1", "namespace": "shop", "uid": "u1", "labels": {"app": "web", "tier": "a"}},
            "spec": spec,
            "status": {"phase": "Running"}
        }))
        .expect("pod")
    }

    #[test]
    fn a_pod_without_terms_is_rebuilt_from_its_columns() {
        let pod = whole(json!({"nodeName": "node-1", "containers": [{"name": "app",
            "resources": {"requests": {"cpu": "250m", "memory": "64Mi", "example.com/gpu": "2"}}}]}));
        assert!(!has_scheduling_terms(&pod));
        let labels = labels_text(&pod);
        assert_eq!(labels.as_deref(), Some(r#"{"app":"web","tier":"a"}"#));
        let light = pod_for_filters(&FilterFields {
            namespace: "shop",
            name: "web-1",
            uid: Some("u1"),
            node: Some("node-1"),
            cpu: 250,
            memory: 64 << 20,
            other: Some(r#"{"example.com/gpu":2}"#),
            labels: labels.as_deref(),
        })
        .expect("light pod");
        assert_eq!(light.requests, pod.requests);
        assert_eq!(
            (light.labels.clone(), light.node_name.clone(), light.uid.clone()),
            (pod.labels, pod.node_name, pod.uid)
        );
        assert!(light.counts_toward_usage());
    }

    #[test]
    fn host_ports_and_pod_affinity_terms_need_the_whole_pod() {
        let ports = whole(json!({"containers": [{"name": "app", "ports": [{"containerPort": 80, "hostPort": 80}]}]}));
        assert!(has_scheduling_terms(&ports));
        let anti = whole(json!({"containers": [{"name": "app"}], "affinity": {"podAntiAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "podAffinityTerm": {
                "labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}}]}}}));
        assert!(has_scheduling_terms(&anti));
        let node_affinity = whole(json!({"containers": [{"name": "app"}], "affinity": {"nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}}}}));
        assert!(!has_scheduling_terms(&node_affinity), "node affinity is the incoming pod's filter only");
        assert!(labels_text(&whole(json!({"containers": []}))).is_some());
    }

    #[test]
    fn unreadable_columns_are_named() {
        let base = FilterFields {
            namespace: "d",
            name: "x",
            uid: None,
            node: None,
            cpu: 0,
            memory: 0,
            other: Some("[1]"),
            labels: None,
        };
        let e = pod_for_filters(&base).expect_err("not an object");
        assert!(e.starts_with("requests_other \"[1]\""), "{e}");
        let e = pod_for_filters(&FilterFields { other: Some(r#"{"a":"1"}"#), ..base }).expect_err("a string");
        assert_eq!(e, "requests_other.a: \"1\" is not an integer");
        let e = pod_for_filters(&FilterFields { other: None, labels: Some(r#"{"a":1}"#), ..base }).expect_err("label");
        assert!(e.starts_with("labels "), "{e}");
        let empty = pod_for_filters(&FilterFields { other: None, ..base }).expect("no requests");
        assert!(empty.requests.is_empty() && empty.labels.is_empty() && !empty.counts_toward_usage());
    }
}
