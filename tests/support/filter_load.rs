//! Checks that the cluster loaded for the scheduler's filters
//! (`ClusterAt::load_for_filters`, schema v10: pods from their filter fields
//! unless they must be read whole) is the cluster `ClusterAt::load` reads,
//! as far as the filters can tell, and that `FilterVersions::whole` gives
//! back the whole pods.

use std::collections::BTreeSet;

use kdrift_analyze::state::for_filters::whole;
use kdrift_analyze::state::ClusterAt;
use kdrift_ingest::Store;
use kdrift_rebalance::{evaluate, ClusterState, PodInfo};
use serde_json::json;

/// What the filters read of an existing pod, comparable.
fn filter_view(p: &PodInfo) -> String {
    let requests: BTreeSet<(String, i64)> =
        p.requests.iter().filter(|(_, v)| *v != 0).map(|(r, v)| (r.to_string(), v)).collect();
    format!(
        "{}/{} uid={:?} counts={} node={:?} requests={requests:?} labels={:?} ports={:?} affinity={:?} anti={:?}",
        p.namespace,
        p.name,
        p.uid,
        p.counts_toward_usage(),
        p.counts_toward_usage().then_some(&p.node_name),
        p.labels,
        p.host_ports,
        p.affinity.pod_affinity,
        p.affinity.pod_anti_affinity,
    )
}

/// Pods to evaluate on both clusters: a plain 500m pod, and for up to four
/// labels of pods on nodes a pod with a required pod affinity to it and one
/// with a required anti-affinity (per node), plus one asking for a host port
/// an existing pod holds.
fn probes(cluster: &ClusterAt) -> Vec<PodInfo> {
    let pod = |ns: &str, spec: serde_json::Value| {
        PodInfo::from_json(&json!({"metadata": {"name": "probe", "namespace": ns, "uid": "probe-uid"}, "spec": spec}))
            .expect("probe pod")
    };
    let container = json!([{"name": "c", "resources": {"requests": {"cpu": "500m", "memory": "64Mi"}}}]);
    let mut out = vec![pod("default", json!({"containers": container}))];
    let mut seen = BTreeSet::new();
    for p in cluster.pods.iter().filter(|p| p.counts_toward_usage()) {
        let Some((k, v)) = p.labels.iter().find(|(k, _)| k.as_str() != "pod-template-hash") else { continue };
        if seen.len() >= 4 || !seen.insert((p.namespace.clone(), k.clone(), v.clone())) {
            continue;
        }
        let term = json!([{"labelSelector": {"matchLabels": {k: v}}, "topologyKey": "kubernetes.io/hostname"}]);
        out.push(pod(
            &p.namespace,
            json!({"containers": container, "affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": term}}}),
        ));
        out.push(pod(
            &p.namespace,
            json!({"containers": container, "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": term}}}),
        ));
    }
    if let Some(port) = cluster.pods.iter().flat_map(|p| p.host_ports.iter()).next() {
        out.push(pod(
            "default",
            json!({"containers": [{"name": "c", "ports": [{"containerPort": port.port, "hostPort": port.port, "protocol": port.protocol}]}]}),
        ));
    }
    out
}

/// At the instants of [`crate::sample_instants`]`(store, samples)`:
/// `load_for_filters` (with labels) gives the same pods in the same order
/// with the same filter fields, the same nodes and the same estimated, unreadable and
/// event-only lists as `load`; every probe pod gets the same verdict on
/// every node from both; and `FilterVersions::whole` gives back each pod
/// on a node as `load` reads it. Returns how many pods were read from their filter
/// fields alone, summed over the instants (a caller asserts it is not 0
/// where the store has such pods).
///
/// # Panics
/// On the first difference, naming the instant.
pub fn assert_filter_load_agrees(store: &Store, samples: usize) -> usize {
    let mut light_pods = 0;
    for at in crate::sample_instants(store, samples) {
        let full = ClusterAt::load(store, at).expect("load");
        let (light, versions) = ClusterAt::load_for_filters(store, at, true).expect("load_for_filters");
        assert_eq!(light.nodes, full.nodes, "nodes at {at}");
        assert_eq!(light.estimated_nodes, full.estimated_nodes, "estimated nodes at {at}");
        assert_eq!(light.estimated_pods, full.estimated_pods, "estimated pods at {at}");
        assert_eq!(light.event_only_pods, full.event_only_pods, "event-only pods at {at}");
        assert_eq!(light.requests_unknown, full.requests_unknown, "pods without requests at {at}");
        assert_eq!(light.unreadable, full.unreadable, "unreadable objects at {at}");
        let views = |c: &ClusterAt| c.pods.iter().map(filter_view).collect::<Vec<_>>();
        assert_eq!(views(&light), views(&full), "pods at {at}");
        let differ = light.pods.iter().zip(&full.pods).filter(|(l, f)| l != f).count();
        assert!(differ <= versions.len(), "{differ} pods differ, {} read from their filter fields", versions.len());
        light_pods += versions.len();
        let full_state = ClusterState::new(full.nodes.clone(), full.pods.clone());
        for probe in probes(&full) {
            let a = evaluate(&full_state, &probe);
            let b = evaluate(&ClusterState::new(light.nodes.clone(), light.pods.clone()), &probe);
            assert_eq!(b, a, "verdicts for {:?} at {at}", probe.affinity);
        }
        // Without labels (an incoming pod with no required inter-pod term): the same verdicts for such a pod.
        let (unlabelled, _) = ClusterAt::load_for_filters(store, at, false).expect("load_for_filters");
        assert_eq!(unlabelled.pods.len(), full.pods.len(), "pods at {at}");
        let plain = probes(&full).into_iter().filter(|p| {
            p.affinity.pod_affinity.required.is_empty() && p.affinity.pod_anti_affinity.required.is_empty()
        });
        for probe in plain {
            let b = evaluate(&ClusterState::new(unlabelled.nodes.clone(), unlabelled.pods.clone()), &probe);
            assert_eq!(b, evaluate(&full_state, &probe), "verdicts without labels at {at}");
        }
        let on_nodes: Vec<&PodInfo> = light.pods.iter().filter(|p| p.counts_toward_usage()).collect();
        let whole_pods = versions.whole(store, &on_nodes).expect("FilterVersions::whole");
        for (l, f) in light.pods.iter().zip(&full.pods) {
            if f.counts_toward_usage() {
                assert_eq!(whole(l, &whole_pods), f, "whole pod {}/{} at {at}", f.namespace, f.name);
            }
        }
    }
    light_pods
}
