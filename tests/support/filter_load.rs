//! Checks that the cluster loaded for the scheduler's filters
//! (`ClusterAt::load_for_filters`, schema v10: pods from their filter fields
//! unless they must be read whole) is the cluster `ClusterAt::load` reads,
//! as far as the filters can tell, and that `FilterVersions::whole` gives
//! back the whole pods; and the same of `ClusterAt::load_summed` (pods not
//! listed, counted by their nodes' sums) and `Unlisted::pods_on`.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use kdrift_analyze::whole;
use kdrift_analyze::ClusterAt;
use kdrift_analyze::Unlisted;
use kdrift_rebalance::{evaluate, evaluate_with_sums, ClusterState, PodInfo};
use kdrift_store::Store;
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
        p.rare.host_ports,
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
        let Some((k, v)) = p.labels.iter().find(|(k, _)| *k != "pod-template-hash") else { continue };
        if seen.len() >= 4 || !seen.insert((p.namespace.clone(), k.to_string(), v.to_string())) {
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
    if let Some(port) = cluster.pods.iter().flat_map(|p| p.rare.host_ports.iter()).next() {
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
        assert_summed_load_agrees(store, at, &full);
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

/// `load_summed` at `at` against `load` (`full`): the same nodes and notes; for each pending pod tried (a pod the
/// store does not have, and a stored pod counting on a node, which the
/// summed load lists and the report leaves out) the listed pods plus the
/// sums give every node the amounts and pod count of the full state
/// without that pod, a plain probe gets the same verdicts on every node, and
/// `Unlisted::pods_on` gives back every node's pods whole, in the full
/// state's order.
///
/// # Panics
/// On the first difference, naming the instant.
fn assert_summed_load_agrees(store: &Store, at: DateTime<Utc>, full: &ClusterAt) {
    let stored = full.pods.iter().find(|p| p.counts_toward_usage() && !full.event_only_pods.contains(&p.key()));
    let pendings =
        [Some(("default".to_string(), "probe".to_string())), stored.map(|p| (p.namespace.clone(), p.name.clone()))];
    for (ns, name) in pendings.into_iter().flatten() {
        let (summed, sums) = ClusterAt::load_summed(store, at, &ns, &name)
            .expect("load_summed")
            .unwrap_or_else(|| panic!("the sums disagree with the stored versions at {at}"));
        assert_eq!(summed.nodes, full.nodes, "nodes at {at}");
        assert_eq!(summed.estimated_nodes, full.estimated_nodes, "estimated nodes at {at}");
        assert_eq!(summed.estimated_pods, full.estimated_pods, "estimated pods at {at}");
        assert_eq!(summed.event_only_pods, full.event_only_pods, "event-only pods at {at}");
        assert_eq!(summed.requests_unknown, full.requests_unknown, "pods without requests at {at}");
        assert_eq!(summed.unreadable, full.unreadable, "unreadable objects at {at}");
        let listed_pending = summed.pods.iter().any(|p| p.namespace == ns && p.name == name);
        assert!(listed_pending || (ns == "default" && name == "probe"), "{ns}/{name} is listed at {at}");
        // As why-pending builds them: without the pending pod.
        let without = |pods: &[PodInfo]| -> Vec<PodInfo> {
            pods.iter().filter(|p| !(p.namespace == ns && p.name == name)).cloned().collect()
        };
        let expected = ClusterState::new(full.nodes.clone(), without(&full.pods));
        let listed = ClusterState::new(summed.nodes.clone(), without(&summed.pods));
        let (want, got) = (expected.by_node(), listed.by_node());
        for node in &full.nodes {
            let mut used = got.usage(&node.name);
            if let Some(s) = sums.get(&node.name) {
                used.add(s);
            }
            let nonzero = |r: &kdrift_rebalance::ResourceList| -> Vec<(String, i64)> {
                r.iter().filter(|(_, v)| *v != 0).map(|(k, v)| (k.to_string(), v)).collect()
            };
            assert_eq!(
                nonzero(&used),
                nonzero(&want.usage(&node.name)),
                "requested on {} at {at} (pending {ns}/{name})",
                node.name
            );
        }
        let unlisted = Unlisted::Summed { summed: sums.clone(), pending: (ns.clone(), name.clone()) };
        let names: Vec<&str> = full.nodes.iter().map(|n| n.name.as_str()).collect();
        let on = unlisted.pods_on(store, at, &listed, &summed.event_only_pods, &names).expect("pods_on");
        for node in &names {
            let want: Vec<&PodInfo> = want.pods_on(node).to_vec();
            let got: Vec<&PodInfo> = on[*node].iter().collect();
            assert_eq!(got, want, "pods on {node} at {at} (pending {ns}/{name})");
        }
        let plain = probes(full).into_iter().filter(|p| {
            p.affinity.pod_affinity.required.is_empty() && p.affinity.pod_anti_affinity.required.is_empty()
        });
        for probe in plain {
            let b = evaluate_with_sums(&listed, &sums, &probe).expect("a probe without inter-pod terms");
            assert_eq!(b, evaluate(&expected, &probe), "verdicts with sums at {at} (pending {ns}/{name})");
        }
    }
}
