//! Which planned evictions the API server would refuse because a
//! PodDisruptionBudget allows no disruption, and what v0.36 does then.
//!
//! Source: descheduler v0.36 `pkg/descheduler/evictions/evictions.go`
//! (`PodEvictor.EvictPod`): the cycle's limits are checked first (total,
//! node, namespace); then `evictPod` calls the `policy/v1` Eviction API; a
//! 429 (TooManyRequests, what the API answers when a PDB allows no
//! disruption) comes back as `error when evicting pod (ignoring) %q: %v`,
//! EvictPod returns that error and the node, namespace and total counters
//! are incremented only after a success. So a refused eviction frees
//! nothing, moves nothing and costs nothing against the limits; the plugin
//! logs "eviction failed" and goes on with its next pod (the utilization
//! plugins leave their usage and budget unchanged). The pod stays a
//! candidate for later plugins of the cycle, which try it again.
//!
//! The budget: `status.disruptionsAllowed` when the store has it, less the
//! pods it selects already evicted earlier in this cycle (the API server
//! decrements it with each eviction it admits). Without a status it is
//! computed the way the disruption controller does, from the healthy pods
//! it selects (in its namespace, not terminating, not evicted earlier in
//! the cycle, `Ready` condition `True`; phase Running when the pod's
//! conditions were not read): `healthy - desiredHealthy`, with
//! desiredHealthy = `minAvailable`, or `expected - maxUnavailable`; a
//! percentage is of `expected`, rounded up. Departure: `expected` is the
//! number of selected pods that are not Succeeded/Failed (the controller
//! reads its owners' `spec.replicas`, which the model does not have). A
//! PDB with neither field and no status refuses nothing. PDBs are tried in
//! snapshot order; the first that allows no disruption is named.
//!
//! EvictionsInBackground (`descheduler.alpha.kubernetes.io/request-evict-only`,
//! KubeVirt): with that feature gate on, an eviction of an annotated pod the
//! API answers with a 429 containing "Eviction triggered evacuation" is not
//! counted as an eviction but cached as an eviction request, and cached
//! requests count against the same limits (`total + requests + 1 > max`);
//! a pod already in that cache is skipped ("Eviction in background already
//! requested (ignoring)"). The gate is off by default (reference §1.1), and
//! then the annotation changes nothing: kdrift plans with the gate off and
//! warns when an annotated pod is planned.

use std::collections::BTreeSet;

use serde::Serialize;

use super::{Pdb, Snapshot};
use crate::model::pod::{PodInfo, PodPhase};

/// The KubeVirt-style annotation asking for an eviction in background.
pub const REQUEST_EVICT_ONLY_ANNOTATION: &str = "descheduler.alpha.kubernetes.io/request-evict-only";

/// An `IntOrString` count of pods: `3` or `"30%"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum IntOrPercent {
    /// A number of pods.
    Int(i64),
    /// A percentage of the expected pods.
    Percent(i64),
}

impl IntOrPercent {
    /// The value for `expected` pods, a percentage rounded up
    /// (`GetScaledValueFromIntOrPercent(.., roundUp=true)`).
    pub fn scaled(self, expected: i64) -> i64 {
        match self {
            IntOrPercent::Int(n) => n,
            IntOrPercent::Percent(p) => (p * expected + 99) / 100,
        }
    }
}

fn selects(b: &Pdb, pod: &PodInfo) -> bool {
    b.namespace == pod.namespace && b.selector.as_ref().is_some_and(|s| s.matches(&pod.labels))
}

fn healthy(pod: &PodInfo) -> bool {
    if pod.is_terminating() {
        return false;
    }
    match pod.status.as_deref() {
        Some(s) if !s.conditions.is_empty() => s.conditions.iter().any(|c| c.type_ == "Ready" && c.status == "True"),
        _ => pod.phase == Some(PodPhase::Running),
    }
}

/// The disruptions `b` allows now, after the pods in `evicted` left;
/// `None` when it cannot be known (no status, neither field).
pub(crate) fn disruptions_allowed(snapshot: &Snapshot, b: &Pdb, evicted: &BTreeSet<usize>) -> Option<i64> {
    let selected = || snapshot.pods.iter().enumerate().filter(|(_, p)| selects(b, p));
    if let Some(n) = b.disruptions_allowed {
        let gone = selected().filter(|(i, _)| evicted.contains(i)).count() as i64;
        return Some((n - gone).max(0));
    }
    let expected = selected()
        .filter(|(_, p)| !matches!(p.phase, Some(PodPhase::Succeeded) | Some(PodPhase::Failed)))
        .count() as i64;
    let desired = match (b.min_available, b.max_unavailable) {
        (Some(min), _) => min.scaled(expected),
        (None, Some(max)) => (expected - max.scaled(expected)).max(0),
        (None, None) => return None,
    };
    let healthy = selected().filter(|(i, p)| !evicted.contains(i) && healthy(p)).count() as i64;
    Some((healthy - desired).max(0))
}

/// The PDB (`NS/NAME`) that makes the API refuse evicting pod `index` now,
/// with its numbers, e.g. `("web/web-pdb", "disruptionsAllowed 0")`.
pub(crate) fn refusing_pdb(snapshot: &Snapshot, index: usize, evicted: &BTreeSet<usize>) -> Option<(String, String)> {
    let pod = &snapshot.pods[index];
    snapshot.pdbs.iter().filter(|b| selects(b, pod)).find_map(|b| {
        let allowed = disruptions_allowed(snapshot, b, evicted)?;
        (allowed <= 0).then(|| {
            let how = match b.disruptions_allowed {
                Some(n) if n > 0 => format!("status.disruptionsAllowed {n}, used by earlier evictions in this cycle"),
                Some(n) => format!("status.disruptionsAllowed {n}"),
                None => "no healthy pod above minAvailable/maxUnavailable".to_string(),
            };
            (format!("{}/{}", b.namespace, b.name), how)
        })
    })
}

/// The text a refused eviction shows.
pub(crate) fn refusal_text(pdb: &str) -> String {
    format!("descheduler will try it and the API will refuse it (429, PDB {pdb})")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::pod::LabelSelector;
    use crate::planner::tests::{lnu, node, now, pod, policy_with};
    use crate::planner::{plan, PlanOptions};

    /// `a` (1000m) runs web-1..3 at 300m each (90 %), `b` is empty; with
    /// thresholds cpu 20 / 50 upstream evicts two pods from `a`.
    fn cluster(pdb: Pdb) -> Snapshot {
        let pods = (1..=3)
            .map(|i| {
                let mut p = pod("default", &format!("web-{i}"), "a", 300, 0);
                p.labels.insert("app".into(), "web".into());
                p.labels.insert("n".into(), i.to_string());
                p
            })
            .collect();
        let mut s = Snapshot::new(vec![node("a", 1000, 1000, 10), node("b", 1000, 1000, 10)], pods, now());
        s.pdbs.push(pdb);
        s
    }

    fn pdb(
        selector: &[(&str, &str)],
        allowed: Option<i64>,
        min: Option<IntOrPercent>,
        max: Option<IntOrPercent>,
    ) -> Pdb {
        Pdb {
            namespace: "default".into(),
            name: "web-pdb".into(),
            selector: Some(LabelSelector::from_labels(selector)),
            disruptions_allowed: allowed,
            min_available: min,
            max_unavailable: max,
        }
    }

    fn outcome(s: &Snapshot, max_total: Option<u32>) -> (Vec<String>, usize, Vec<usize>) {
        let mut policy = policy_with(Default::default(), lnu(&[("cpu", 20.0)], &[("cpu", 50.0)]));
        policy.max_no_of_pods_to_evict_total = max_total;
        let p = plan(s, &policy, &PlanOptions::default());
        let rows = p
            .evictions()
            .map(|e| {
                format!("{} {} total={}", e.pod.name, e.refusal().unwrap_or_else(|| "evicted".into()), e.counted.total)
            })
            .collect();
        (rows, p.evictions_total, p.evicted_pod_indices())
    }

    #[test]
    fn zero_disruptions_allowed_is_refused_frees_nothing_and_counts_nothing() {
        let s = cluster(pdb(&[("n", "1")], Some(0), None, None));
        let (rows, total, indices) = outcome(&s, Some(2));
        // web-1 is tried first and refused: usage and budget unchanged, no
        // limit spent, so with maxNoOfPodsToEvictTotal 2 both others go.
        assert_eq!(
            rows,
            [
                "web-1 descheduler will try it and the API will refuse it (429, PDB default/web-pdb) total=0",
                "web-2 evicted total=1",
                "web-3 evicted total=2",
            ]
        );
        assert_eq!((total, indices), (2, vec![1, 2]));
        let mut policy = policy_with(Default::default(), lnu(&[("cpu", 20.0)], &[("cpu", 50.0)]));
        policy.max_no_of_pods_to_evict_total = Some(2);
        let p = plan(&s, &policy, &PlanOptions::default());
        let refused = p.evictions().next().expect("first");
        assert_eq!((refused.frees.get("cpu"), refused.order), (0, 1));
        assert_eq!(
            p.warnings,
            ["eviction #1 of default/web-1 (LowNodeUtilization): descheduler will try it and the API will refuse it \
              (429, PDB default/web-pdb) — status.disruptionsAllowed 0: it frees nothing and lands nowhere, and \
              descheduler v0.36 counts it against no limit (PodEvictor counts only evictions the API admits)"]
        );
        // The landing simulation moves only the two admitted pods.
        let sim = crate::simulate::simulate_plan(&s, &p);
        let moved: Vec<&str> = sim.landings.iter().map(|l| l.pod.name.as_str()).collect();
        assert_eq!(moved, ["web-2", "web-3"]);
    }

    #[test]
    fn one_disruption_is_used_by_the_first_eviction_of_the_cycle() {
        let (rows, total, _) = outcome(&cluster(pdb(&[("app", "web")], Some(1), None, None)), None);
        assert_eq!(
            rows,
            [
                "web-1 evicted total=1",
                "web-2 descheduler will try it and the API will refuse it (429, PDB default/web-pdb) total=1",
                "web-3 descheduler will try it and the API will refuse it (429, PDB default/web-pdb) total=1",
            ]
        );
        assert_eq!(total, 1);
    }

    #[test]
    fn without_status_computed_from_min_available_and_max_unavailable() {
        let web = [("app", "web")];
        let s = cluster(pdb(&web, None, Some(IntOrPercent::Int(3)), None));
        assert_eq!(disruptions_allowed(&s, &s.pdbs[0], &BTreeSet::new()), Some(0));
        let (_, total, _) = outcome(&s, None);
        assert_eq!(total, 0);
        // maxUnavailable 34 % of 3 rounds up to 2: desired healthy 1, 3 healthy → 2.
        let s = cluster(pdb(&web, None, None, Some(IntOrPercent::Percent(34))));
        assert_eq!(disruptions_allowed(&s, &s.pdbs[0], &BTreeSet::new()), Some(2));
        assert_eq!(disruptions_allowed(&s, &s.pdbs[0], &BTreeSet::from([0, 1])), Some(0));
        // minAvailable 50 % of 3 → 2; a pod whose Ready condition is False is not healthy.
        let mut s = cluster(pdb(&web, None, Some(IntOrPercent::Percent(50)), None));
        let mut st = crate::model::pod::PodStatusInfo::default();
        st.conditions.push(crate::model::pod::PodCondition {
            type_: "Ready".into(),
            status: "False".into(),
            ..Default::default()
        });
        s.pods[2].status = Some(Box::new(st));
        assert_eq!(disruptions_allowed(&s, &s.pdbs[0], &BTreeSet::new()), Some(0));
        // Neither field nor status: unknown, refuses nothing.
        let s = cluster(pdb(&web, None, None, None));
        assert_eq!((disruptions_allowed(&s, &s.pdbs[0], &BTreeSet::new()), outcome(&s, None).1), (None, 2));
    }

    #[test]
    fn request_evict_only_is_planned_with_the_gate_off_and_warned_about() {
        let mut s = cluster(pdb(&[("n", "9")], Some(0), None, None));
        s.pods[0].annotations.insert(REQUEST_EVICT_ONLY_ANNOTATION.into(), String::new());
        let policy = policy_with(Default::default(), lnu(&[("cpu", 20.0)], &[("cpu", 50.0)]));
        let p = plan(&s, &policy, &PlanOptions::default());
        assert_eq!(p.evictions_total, 2);
        assert_eq!(
            p.warnings,
            ["default/web-1 has descheduler.alpha.kubernetes.io/request-evict-only: with descheduler's \
              EvictionsInBackground feature gate (off by default) its controller would answer the eviction with \
              an evacuation, counted as an eviction request against the same limits; kdrift plans it with the \
              gate off, as an ordinary eviction"]
        );
    }
}
