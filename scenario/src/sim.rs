//! A small model of kube-scheduler's default profile, used to decide where
//! every replacement pod lands, so the story's placements are the ones the
//! real scheduler would make (reference §6).
//!
//! Filters, in the scheduler's order, first failure wins per node:
//! NodeUnschedulable (cordon, and the not-ready/unreachable NoSchedule taints
//! a rebooting node carries), TaintToleration (a NoSchedule taint an
//! operator set, which no pod of the story tolerates), NodeResourcesFit
//! (cpu, memory, i915, pods), InterPodAffinity (a required `app=<x>`
//! affinity on the hostname topology).
//!
//! Scores: NodeResourcesFit LeastAllocated (weight 1, non-zero defaults of
//! 100m / 200Mi for containers without requests), BalancedAllocation
//! (weight 1, real requests), NodeAffinity preferred terms (weight 2,
//! normalised to 0–100). Equal scores go to the lowest node name (the real
//! scheduler picks at random among them). Left out because they are equal on
//! every node here: TaintToleration, ImageLocality, default topology spread.

use super::catalog::{Pref, NODE_CPU_M, NODE_I915, NODE_PODS};

/// Non-zero default CPU (millicores) counted for scoring a container without a request.
const NONZERO_CPU_M: i64 = 100;
/// Non-zero default memory (MiB) counted for scoring a container without a request.
const NONZERO_MEM_MI: i64 = 200;

/// What a pod asks for.
#[derive(Debug, Clone, Default)]
pub(crate) struct Demand {
    /// CPU requests, millicores.
    pub cpu_m: i64,
    /// Memory requests, MiB.
    pub mem_mi: i64,
    /// i915 slots.
    pub i915: i64,
    /// Non-zero CPU for scoring.
    pub nz_cpu_m: i64,
    /// Non-zero memory for scoring.
    pub nz_mem_mi: i64,
}

impl Demand {
    /// Sums container requests, applying the non-zero defaults per container.
    pub(crate) fn of(containers: &[super::catalog::ContainerDef]) -> Demand {
        let mut d = Demand::default();
        for c in containers {
            d.cpu_m += c.cpu_m;
            d.mem_mi += c.mem_mi;
            d.i915 += c.i915;
            d.nz_cpu_m += if c.cpu_m == 0 { NONZERO_CPU_M } else { c.cpu_m };
            d.nz_mem_mi += if c.mem_mi == 0 { NONZERO_MEM_MI } else { c.mem_mi };
        }
        d
    }

    fn add(&mut self, o: &Demand) {
        self.cpu_m += o.cpu_m;
        self.mem_mi += o.mem_mi;
        self.i915 += o.i915;
        self.nz_cpu_m += o.nz_cpu_m;
        self.nz_mem_mi += o.nz_mem_mi;
    }
}

/// A node as the scheduler sees it at one instant.
#[derive(Debug, Clone)]
pub(crate) struct NodeView {
    /// Node name.
    pub name: &'static str,
    /// Allocatable memory, MiB.
    pub mem_alloc_mi: i64,
    /// Fast node: i915, AVX2, preferred by [`Pref`] terms.
    pub fast: bool,
    /// Cordoned or carrying a NoSchedule not-ready/unreachable taint.
    pub blocked: bool,
    /// A NoSchedule taint set by an operator (key, value): no pod tolerates it.
    pub taint: Option<(&'static str, &'static str)>,
    /// Sum of the bound, non-terminal pods.
    pub used: Demand,
    /// Number of those pods.
    pub pods: i64,
    /// `app` labels of those pods.
    pub apps: Vec<String>,
}

impl NodeView {
    /// Records that a pod was bound here.
    pub(crate) fn bind(&mut self, d: &Demand, app: &str) {
        self.used.add(d);
        self.pods += 1;
        self.apps.push(app.to_string());
    }
}

/// Why one node was filtered out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reject {
    /// `node(s) were unschedulable` (or had untolerated taints).
    Unschedulable,
    /// `node(s) had untolerated taint {KEY: VALUE}` (TaintToleration, 1.24–1.33 wording).
    Taint(&'static str, &'static str),
    /// `Insufficient <resource>` items.
    Insufficient(Vec<&'static str>),
    /// `node(s) didn't match pod affinity rules`.
    PodAffinity,
}

/// What the scheduler is asked to place.
pub(crate) struct Request<'a> {
    /// Requests.
    pub demand: &'a Demand,
    /// Preferred node affinity.
    pub pref: Pref,
    /// Required pod affinity `app=<x>` with topologyKey hostname.
    pub affinity_app: Option<&'a str>,
}

fn filter(n: &NodeView, r: &Request<'_>) -> Result<(), Reject> {
    if n.blocked {
        return Err(Reject::Unschedulable);
    }
    if let Some((key, value)) = n.taint {
        return Err(Reject::Taint(key, value));
    }
    let d = r.demand;
    let mut short = Vec::new();
    if n.pods + 1 > NODE_PODS {
        short.push("Too many pods");
    }
    if d.cpu_m > 0 && n.used.cpu_m + d.cpu_m > NODE_CPU_M {
        short.push("Insufficient cpu");
    }
    if d.mem_mi > 0 && n.used.mem_mi + d.mem_mi > n.mem_alloc_mi {
        short.push("Insufficient memory");
    }
    let i915_alloc = if n.fast { NODE_I915 } else { 0 };
    if d.i915 > 0 && n.used.i915 + d.i915 > i915_alloc {
        short.push("Insufficient gpu.intel.com/i915");
    }
    if !short.is_empty() {
        return Err(Reject::Insufficient(short));
    }
    if let Some(app) = r.affinity_app {
        if !n.apps.iter().any(|a| a == app) {
            return Err(Reject::PodAffinity);
        }
    }
    Ok(())
}

fn pref_weight(n: &NodeView, pref: Pref) -> i64 {
    match pref {
        Pref::None => 0,
        Pref::FastHosts | Pref::Avx2 => {
            if n.fast {
                100
            } else {
                0
            }
        }
    }
}

fn resource_scores(n: &NodeView, d: &Demand) -> i64 {
    let least = |alloc: i64, used: i64| ((alloc - used).max(0) * 100) / alloc;
    let la =
        (least(NODE_CPU_M, n.used.nz_cpu_m + d.nz_cpu_m) + least(n.mem_alloc_mi, n.used.nz_mem_mi + d.nz_mem_mi)) / 2;
    let fc = ((n.used.cpu_m + d.cpu_m) as f64 / NODE_CPU_M as f64).min(1.0);
    let fm = ((n.used.mem_mi + d.mem_mi) as f64 / n.mem_alloc_mi as f64).min(1.0);
    let ba = ((1.0 - (fc - fm).abs() / 2.0) * 100.0) as i64;
    la + ba
}

/// Picks the node for a pod: `Ok(index)` or, when no node passes the filters,
/// each node's rejection.
pub(crate) fn place(nodes: &[NodeView], r: &Request<'_>) -> Result<usize, Vec<Reject>> {
    let verdicts: Vec<Result<(), Reject>> = nodes.iter().map(|n| filter(n, r)).collect();
    let feasible: Vec<usize> = (0..nodes.len()).filter(|&i| verdicts[i].is_ok()).collect();
    if feasible.is_empty() {
        return Err(verdicts.into_iter().filter_map(Result::err).collect());
    }
    let max_pref = feasible.iter().map(|&i| pref_weight(&nodes[i], r.pref)).max().unwrap_or(0);
    let mut best: Option<(i64, usize)> = None;
    for &i in &feasible {
        let na = if max_pref > 0 { pref_weight(&nodes[i], r.pref) * 100 / max_pref } else { 0 };
        let score = 2 * na + resource_scores(&nodes[i], r.demand);
        if best.is_none_or(|(s, _)| score > s) {
            best = Some((score, i));
        }
    }
    best.map(|(_, i)| i).ok_or_else(Vec::new)
}

/// The FailedScheduling message for a set of rejections, as `FitError.Error()`
/// builds it (counts sorted as text), with the preemption post-filter text.
pub(crate) fn failure_message(rejects: &[Reject]) -> String {
    let n = rejects.len();
    let mut counts: Vec<(String, usize)> = Vec::new();
    let bump = |reason: &str, v: &mut Vec<(String, usize)>| match v.iter_mut().find(|(r, _)| r == reason) {
        Some((_, c)) => *c += 1,
        None => v.push((reason.to_string(), 1)),
    };
    // Preemption: resource shortages could be solved by evicting a lower
    // priority pod (none exists here); the other reasons cannot.
    let mut pre: Vec<(String, usize)> = Vec::new();
    for r in rejects {
        match r {
            Reject::Unschedulable => {
                bump("node(s) were unschedulable", &mut counts);
                bump("Preemption is not helpful for scheduling", &mut pre);
            }
            Reject::Insufficient(items) => {
                for i in items {
                    bump(i, &mut counts);
                }
                bump("No preemption victims found for incoming pod", &mut pre);
            }
            Reject::Taint(key, value) => {
                bump(&format!("node(s) had untolerated taint {{{key}: {value}}}"), &mut counts);
                bump("Preemption is not helpful for scheduling", &mut pre);
            }
            Reject::PodAffinity => {
                bump("node(s) didn't match pod affinity rules", &mut counts);
                bump("Preemption is not helpful for scheduling", &mut pre);
            }
        }
    }
    let join = |v: Vec<(String, usize)>| {
        let mut items: Vec<String> = v.into_iter().map(|(r, c)| format!("{c} {r}")).collect();
        items.sort();
        items.join(", ")
    };
    format!("0/{n} nodes are available: {}. preemption: 0/{n} nodes are available: {}.", join(counts), join(pre))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &'static str, fast: bool, cpu_m: i64, apps: &[&str]) -> NodeView {
        NodeView {
            name,
            mem_alloc_mi: if fast { 7901 } else { 3800 },
            fast,
            blocked: false,
            taint: None,
            used: Demand { cpu_m, nz_cpu_m: cpu_m, ..Demand::default() },
            pods: apps.len() as i64,
            apps: apps.iter().map(|a| a.to_string()).collect(),
        }
    }

    #[test]
    fn message_counts_are_sorted_as_text() {
        let mut rejects = vec![Reject::Insufficient(vec!["Insufficient cpu"])];
        rejects.extend(std::iter::repeat_n(Reject::PodAffinity, 10));
        rejects.extend(std::iter::repeat_n(Reject::Unschedulable, 2));
        assert_eq!(
            failure_message(&rejects),
            "0/13 nodes are available: 1 Insufficient cpu, 10 node(s) didn't match pod affinity rules, \
             2 node(s) were unschedulable. preemption: 0/13 nodes are available: \
             1 No preemption victims found for incoming pod, 12 Preemption is not helpful for scheduling."
        );
    }

    #[test]
    fn preferred_affinity_beats_emptiness_and_fit_comes_first() {
        let nodes = vec![node("node-1", true, 1800, &["plex"]), node("node-5", false, 0, &[])];
        let d = Demand { cpu_m: 100, nz_cpu_m: 100, mem_mi: 128, nz_mem_mi: 128, i915: 0 };
        let fast = Request { demand: &d, pref: Pref::Avx2, affinity_app: None };
        assert_eq!(place(&nodes, &fast), Ok(0));
        let plain = Request { demand: &d, pref: Pref::None, affinity_app: None };
        assert_eq!(place(&nodes, &plain), Ok(1));
        let big = Demand { cpu_m: 300, nz_cpu_m: 300, ..d.clone() };
        let with_plex = Request { demand: &big, pref: Pref::None, affinity_app: Some("plex") };
        assert_eq!(
            place(&nodes, &with_plex),
            Err(vec![Reject::Insufficient(vec!["Insufficient cpu"]), Reject::PodAffinity])
        );
    }
}
