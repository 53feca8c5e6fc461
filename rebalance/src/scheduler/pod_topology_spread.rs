//! PodTopologySpread: the pod's `topologySpreadConstraints` — the
//! `DoNotSchedule` ones filter, the `ScheduleAnyway` ones (or, for a pod
//! without any, the default profile's system defaults) score.
//!
//! Source: kube-scheduler v1.31+ `framework/plugins/podtopologyspread`
//! (`common.go`, `filtering.go`, `scoring.go`, `plugin.go`), with the
//! MinDomains, NodeInclusionPolicy and MatchLabelKeys features on (GA or
//! beta-on since 1.27–1.30).
//!
//! - A constraint's pods: same namespace as the incoming pod, not
//!   terminating, matching `labelSelector` ANDed with `key in (value)` for
//!   each `matchLabelKeys` key the incoming pod carries (`countPodsMatchSelector`,
//!   `mergeLabelSetWithSelector`). An absent selector matches nothing unless
//!   `matchLabelKeys` adds a requirement (upstream merges into `Nothing`,
//!   whose requirements it then drops).
//! - A node counts for a constraint (`matchNodeInclusionPolicies`) when it
//!   has every constraint's topology key (filter; score with explicit
//!   constraints), matches the pod's nodeSelector and required node affinity
//!   (`nodeAffinityPolicy: Honor`, the default) and tolerates its
//!   NoSchedule/NoExecute taints (only with `nodeTaintsPolicy: Honor`).
//! - Filter: a node lacking a topology key fails `(missing required label)`
//!   (UnschedulableAndUnresolvable); otherwise `matching in the node's domain
//!   + 1 if the pod matches its own selector − global minimum > maxSkew`
//!   fails (Unschedulable). The global minimum is the smallest count over the
//!   eligible domains, 0 when there are fewer than `minDomains` (default 1).
//! - Score: per feasible node, Σ over constraints whose key it has of
//!   `count × ln(domains + 2) + (maxSkew − 1)`, rounded; `count` is the
//!   matching pods on the node itself for `kubernetes.io/hostname` (domains =
//!   the feasible nodes), else the matching pods of the eligible nodes in the
//!   node's domain (domains = the values among feasible nodes). Normalised
//!   `100 × (max + min − s) / max` (100 everywhere when max is 0); nodes
//!   lacking a key of an explicit constraint score 0.
//! - System defaults (`defaultingType: System`): hostname maxSkew 3 and
//!   `topology.kubernetes.io/zone` maxSkew 5, ScheduleAnyway. Upstream's
//!   selector is built from the Services, ReplicationControllers, ReplicaSets
//!   and StatefulSets selecting the pod (`helper.DefaultSelector`), which
//!   kdrift's state does not hold. Approximation: a pod whose controller is a
//!   ReplicaSet, StatefulSet or ReplicationController counts the pods of the
//!   same controller (what that controller's selector selects, barring
//!   orphans it would adopt); a pod selected only by a Service gets no default
//!   spreading here.

use crate::fast_hash::{fast_map, FastMap};
use crate::model::node::NodeInfo;
use crate::model::pod::{LabelSelector, OwnerRef, PodInfo, Requirement, SelectorOperator, TopologySpreadConstraint};

use super::resources_fit::MAX_NODE_SCORE;
use super::{node_affinity, taint_toleration, FilterFailure, NodeSlot, Snapshot};

/// `kubernetes.io/hostname`: its domains are the nodes themselves.
pub(crate) const HOSTNAME: &str = "kubernetes.io/hostname";
/// `topology.kubernetes.io/zone`.
pub(crate) const ZONE: &str = "topology.kubernetes.io/zone";
/// Controller kinds whose selector `helper.DefaultSelector` reads.
const DEFAULT_SELECTOR_KINDS: [&str; 3] = ["ReplicaSet", "StatefulSet", "ReplicationController"];

/// Which existing pods a constraint counts (besides same namespace, not terminating).
#[derive(Debug, Clone)]
enum Selector<'p> {
    /// `labelSelector` with `matchLabelKeys` merged in; `None` matches nothing.
    Labels(Option<LabelSelector>),
    /// The system defaults' approximation: pods of the same controller.
    SameController { kind: &'p str, name: &'p str },
}

/// One constraint with its defaults applied (upstream `topologySpreadConstraint`).
#[derive(Debug, Clone)]
struct Constraint<'p> {
    max_skew: i64,
    key: &'p str,
    selector: Selector<'p>,
    /// `minDomains`, 1 when unset.
    min_domains: i64,
    /// `nodeAffinityPolicy` is not `Ignore`.
    honor_affinity: bool,
    /// `nodeTaintsPolicy` is `Honor`.
    honor_taints: bool,
}

impl<'p> Constraint<'p> {
    /// `filterTopologySpreadConstraints` for one constraint of `pod`.
    fn new(c: &'p TopologySpreadConstraint, pod: &PodInfo) -> Constraint<'p> {
        let mut extra: Vec<Requirement> = Vec::new();
        for k in &c.match_label_keys {
            if let Some(v) = pod.labels.get(k) {
                extra.push(Requirement { key: k.clone(), operator: SelectorOperator::In, values: vec![v.to_string()] });
            }
        }
        let selector = match (c.label_selector.clone(), extra.is_empty()) {
            (s, true) => s,
            (Some(mut s), false) => {
                s.match_expressions.extend(extra);
                Some(s)
            }
            (None, false) => Some(LabelSelector { match_labels: Default::default(), match_expressions: extra }),
        };
        Constraint {
            max_skew: i64::from(c.max_skew),
            key: &c.topology_key,
            selector: Selector::Labels(selector),
            min_domains: c.min_domains.map_or(1, i64::from),
            honor_affinity: c.node_affinity_policy.as_deref() != Some("Ignore"),
            honor_taints: c.node_taints_policy.as_deref() == Some("Honor"),
        }
    }

    /// Whether `p` (an existing pod) counts for this constraint of a pod in `namespace`.
    fn counts(&self, namespace: &str, p: &PodInfo) -> bool {
        if p.namespace != namespace || p.is_terminating() {
            return false;
        }
        match &self.selector {
            Selector::Labels(s) => s.as_ref().is_some_and(|s| s.matches(&p.labels)),
            Selector::SameController { kind, name } => {
                p.controller().is_some_and(|o| o.kind == *kind && o.name == *name)
            }
        }
    }

    /// The pod matches its own selector (`selfMatchNum`).
    fn self_match(&self, pod: &PodInfo) -> bool {
        match &self.selector {
            Selector::Labels(s) => s.as_ref().is_some_and(|s| s.matches(&pod.labels)),
            Selector::SameController { .. } => true,
        }
    }

    /// `matchNodeInclusionPolicies`.
    fn includes(&self, pod: &PodInfo, node: &NodeInfo) -> bool {
        (!self.honor_affinity || node_affinity::filter(pod, node).is_none())
            && (!self.honor_taints || node.taints.is_empty() || taint_toleration::filter(pod, node).is_empty())
    }

    /// Matching pods on one slot.
    fn count_on(&self, namespace: &str, slot: &NodeSlot<'_>) -> i64 {
        slot.pods.iter().filter(|p| self.counts(namespace, p)).count() as i64
    }
}

/// The pod's constraints with `whenUnsatisfiable == action`.
fn explicit<'p>(pod: &'p PodInfo, action: &str) -> Vec<Constraint<'p>> {
    pod.rare
        .topology_spread_constraints
        .iter()
        .filter(|c| c.when_unsatisfiable == action)
        .map(|c| Constraint::new(c, pod))
        .collect()
}

/// `buildDefaultConstraints` with the system defaults (see the module docs
/// for the selector approximation).
fn system_defaults(pod: &PodInfo) -> Vec<Constraint<'_>> {
    let Some(owner) = default_selector_owner(pod) else {
        return Vec::new();
    };
    [(HOSTNAME, 3), (ZONE, 5)]
        .into_iter()
        .map(|(key, max_skew)| Constraint {
            max_skew,
            key,
            selector: Selector::SameController { kind: &owner.kind, name: &owner.name },
            min_domains: 1,
            honor_affinity: true,
            honor_taints: false,
        })
        .collect()
}

/// The pod's controller when it is one whose selector the system defaults
/// read (ReplicaSet, StatefulSet, ReplicationController).
pub(crate) fn default_selector_owner(pod: &PodInfo) -> Option<&OwnerRef> {
    pod.controller().filter(|o| DEFAULT_SELECTOR_KINDS.contains(&o.kind.as_str()))
}

/// True when the pod has a constraint the filter checks (`DoNotSchedule`).
pub(crate) fn has_filter_constraints(pod: &PodInfo) -> bool {
    pod.rare.topology_spread_constraints.iter().any(|c| c.when_unsatisfiable == "DoNotSchedule")
}

/// True when the plugin scores the pod: a `ScheduleAnyway` constraint, or
/// none at all and a controller the system defaults apply to.
pub(crate) fn has_score_constraints(pod: &PodInfo) -> bool {
    if pod.rare.topology_spread_constraints.is_empty() {
        default_selector_owner(pod).is_some()
    } else {
        pod.rare.topology_spread_constraints.iter().any(|c| c.when_unsatisfiable == "ScheduleAnyway")
    }
}

/// Every key of `constraints` is a label of `node` (`nodeLabelsMatchSpreadConstraints`).
fn has_all_keys(constraints: &[Constraint<'_>], node: &NodeInfo) -> bool {
    constraints.iter().all(|c| node.labels.contains_key(c.key))
}

/// The PreFilter counts for one incoming pod (upstream `preFilterState`).
pub(crate) struct FilterState<'p, 'a> {
    constraints: Vec<Constraint<'p>>,
    /// Per constraint: matching pods per eligible domain value.
    counts: Vec<FastMap<&'a str, i64>>,
    /// Per constraint: the global minimum (`minMatchNum`, minDomains applied).
    mins: Vec<i64>,
    /// Per constraint: the incoming pod matches its selector.
    self_match: Vec<bool>,
}

impl<'p, 'a> FilterState<'p, 'a> {
    /// `calPreFilterState`: the pod's DoNotSchedule constraints counted over
    /// every node of `snap`. Costs nothing for a pod without such constraints.
    pub(crate) fn build(snap: &Snapshot<'a>, pod: &'p PodInfo) -> FilterState<'p, 'a> {
        let constraints = if has_filter_constraints(pod) { explicit(pod, "DoNotSchedule") } else { Vec::new() };
        let mut counts: Vec<FastMap<&'a str, i64>> = constraints.iter().map(|_| fast_map(0)).collect();
        if !constraints.is_empty() {
            for slot in &snap.slots {
                let node: &'a NodeInfo = slot.node;
                if !has_all_keys(&constraints, node) {
                    continue;
                }
                for (i, c) in constraints.iter().enumerate() {
                    if !c.includes(pod, node) {
                        continue;
                    }
                    let Some(value) = node.labels.get(c.key) else { continue };
                    *counts[i].entry(value.as_str()).or_insert(0) += c.count_on(&pod.namespace, slot);
                }
            }
        }
        let mins = constraints
            .iter()
            .zip(&counts)
            .map(|(c, m)| {
                if (m.len() as i64) < c.min_domains {
                    0
                } else {
                    m.values().copied().min().unwrap_or(i64::from(i32::MAX))
                }
            })
            .collect();
        let self_match = constraints.iter().map(|c| c.self_match(pod)).collect();
        FilterState { constraints, counts, mins, self_match }
    }

    /// Per constraint, the matching pods per eligible domain (upstream's
    /// `TpValueToMatchNum`), for tests.
    #[cfg(test)]
    pub(crate) fn domain_counts(&self) -> Vec<std::collections::BTreeMap<String, i64>> {
        self.counts.iter().map(|m| m.iter().map(|(k, v)| (k.to_string(), *v)).collect()).collect()
    }

    /// True when the filter passes every node (the pod has no DoNotSchedule constraint).
    pub(crate) fn is_empty(&self) -> bool {
        self.constraints.is_empty()
    }

    /// The first constraint `node` breaks, as upstream `Filter` returns it.
    pub(crate) fn filter(&self, node: &NodeInfo) -> Option<FilterFailure> {
        for (i, c) in self.constraints.iter().enumerate() {
            let Some(value) = node.labels.get(c.key) else {
                return Some(FilterFailure::TopologySpreadMissingLabel { topology_key: c.key.to_string() });
            };
            let matching = self.counts[i].get(value.as_str()).copied().unwrap_or(0);
            let self_match = self.self_match[i];
            let skew = matching + i64::from(self_match) - self.mins[i];
            if skew > c.max_skew {
                return Some(FilterFailure::TopologySpreadSkew(Box::new(SpreadSkew {
                    topology_key: c.key.to_string(),
                    domain: value.clone(),
                    matching,
                    self_match,
                    min: self.mins[i],
                    max_skew: c.max_skew,
                    domains: self.counts[i].len(),
                    min_domains: c.min_domains,
                })));
            }
        }
        None
    }
}

/// The numbers behind a PodTopologySpread skew failure.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SpreadSkew {
    /// The constraint's `topologyKey`.
    pub topology_key: String,
    /// The node's value of that key (its domain).
    pub domain: String,
    /// Pods in that domain matching the constraint.
    pub matching: i64,
    /// The incoming pod matches its own selector (counts 1 more).
    pub self_match: bool,
    /// The global minimum over the eligible domains (0 when fewer than `minDomains`).
    pub min: i64,
    /// The constraint's `maxSkew`.
    pub max_skew: i64,
    /// The number of eligible domains.
    pub domains: usize,
    /// The constraint's `minDomains` (1 when unset).
    pub min_domains: i64,
}

impl SpreadSkew {
    /// `matching + self − min`.
    pub fn skew(&self) -> i64 {
        self.matching + i64::from(self.self_match) - self.min
    }

    /// The failure with its numbers, e.g. `topology spread: zone zone-a has
    /// 3 matching pods, min 1, maxSkew 1 → skew 3 > 1`.
    pub fn explain(&self) -> String {
        let key = match self.topology_key.as_str() {
            ZONE => "zone".to_string(),
            HOSTNAME => "node".to_string(),
            k => k.to_string(),
        };
        let pods = if self.matching == 1 { "pod" } else { "pods" };
        let own = if self.self_match { " (+1 for this pod)" } else { "" };
        let min = if (self.domains as i64) < self.min_domains {
            format!("min 0 ({} domain(s) < minDomains {})", self.domains, self.min_domains)
        } else {
            format!("min {}", self.min)
        };
        format!(
            "topology spread: {key} {} has {} matching {pods}{own}, {min}, maxSkew {} → skew {} > {}",
            self.domain,
            self.matching,
            self.max_skew,
            self.skew(),
            self.max_skew
        )
    }
}

/// The normalised PodTopologySpread scores (0–100) of the `feasible` slots,
/// in order, or `None` when the plugin does not score the pod (no
/// ScheduleAnyway constraint and no system default: upstream's PreScore
/// `Skip`, every node 0).
/// Source: kube-scheduler `initPreScoreState`, `PreScore`, `Score`, `NormalizeScore`.
pub(crate) fn scores(snap: &Snapshot<'_>, pod: &PodInfo, feasible: &[&NodeSlot<'_>]) -> Option<Vec<i64>> {
    if !has_score_constraints(pod) || feasible.is_empty() {
        return None;
    }
    let require_all = !pod.rare.topology_spread_constraints.is_empty();
    let constraints = if require_all { explicit(pod, "ScheduleAnyway") } else { system_defaults(pod) };
    let ignored: Vec<bool> = feasible.iter().map(|s| require_all && !has_all_keys(&constraints, s.node)).collect();
    let n_ignored = ignored.iter().filter(|i| **i).count();
    // Domains among feasible nodes (hostname: counted on the node in Score).
    let mut counts: Vec<FastMap<&str, i64>> = constraints.iter().map(|_| fast_map(0)).collect();
    for (slot, _) in feasible.iter().zip(&ignored).filter(|(_, i)| !**i) {
        for (i, c) in constraints.iter().enumerate() {
            if c.key != HOSTNAME {
                counts[i].entry(slot.node.labels.get(c.key).map_or("", String::as_str)).or_insert(0);
            }
        }
    }
    let weights: Vec<f64> = constraints
        .iter()
        .zip(&counts)
        .map(|(c, m)| {
            let size = if c.key == HOSTNAME { feasible.len() - n_ignored } else { m.len() };
            ((size + 2) as f64).ln()
        })
        .collect();
    if constraints.iter().any(|c| c.key != HOSTNAME) {
        for_each_counted_slot(snap, pod, &constraints, require_all, |i, value, slot| {
            if let Some(n) = counts[i].get_mut(value) {
                *n += constraints[i].count_on(&pod.namespace, slot);
            }
        });
    }
    let raw: Vec<i64> = feasible
        .iter()
        .map(|slot| {
            let mut score = 0.0f64;
            for (i, c) in constraints.iter().enumerate() {
                let Some(value) = slot.node.labels.get(c.key) else { continue };
                let count = if c.key == HOSTNAME {
                    c.count_on(&pod.namespace, slot)
                } else {
                    counts[i].get(value.as_str()).copied().unwrap_or(0)
                };
                score += count as f64 * weights[i] + (c.max_skew - 1) as f64;
            }
            score.round() as i64
        })
        .collect();
    Some(normalize(&raw, &ignored))
}

/// Calls `visit(constraint, domain value, slot)` for every slot and
/// constraint the PreScore counts: nodes with every key (explicit
/// constraints only) that pass the constraint's inclusion policies; a
/// missing key reads as the value `""`.
fn for_each_counted_slot<'a>(
    snap: &'a Snapshot<'_>,
    pod: &PodInfo,
    constraints: &[Constraint<'_>],
    require_all: bool,
    mut visit: impl FnMut(usize, &'a str, &'a NodeSlot<'_>),
) {
    for slot in &snap.slots {
        if require_all && !has_all_keys(constraints, slot.node) {
            continue;
        }
        for (i, c) in constraints.iter().enumerate() {
            if c.key == HOSTNAME || !c.includes(pod, slot.node) {
                continue;
            }
            visit(i, slot.node.labels.get(c.key).map_or("", String::as_str), slot);
        }
    }
}

/// `NormalizeScore`: ignored nodes 0; `100 × (max + min − s) / max`; all 100 when max is 0.
fn normalize(raw: &[i64], ignored: &[bool]) -> Vec<i64> {
    let kept = || raw.iter().zip(ignored).filter(|(_, i)| !**i).map(|(s, _)| *s);
    let min = kept().min().unwrap_or(i64::MAX);
    let max = kept().max().unwrap_or(0).max(0);
    raw.iter()
        .zip(ignored)
        .map(|(s, i)| {
            if *i {
                0
            } else if max == 0 {
                MAX_NODE_SCORE
            } else {
                MAX_NODE_SCORE * (max + min - s) / max
            }
        })
        .collect()
}
