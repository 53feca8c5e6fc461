//! Picking the node for one pod on a built snapshot without naming every
//! candidate: the feasible nodes' totals, then the best, its ties and the
//! runner-up — what [`super::pick_node`] reads off its sorted candidates.

use crate::model::pod::PodInfo;

use super::default_spread::DefaultSpreadIndex;
use super::inter_pod_affinity::PreFilterState;
use super::node_affinity::{self, NodeNameFilter};
use super::order::NodeOrder;
use super::pod_topology_spread::{has_score_constraints, FilterState as SpreadFilter};
use super::resources_fit::{fits, fits_amounts, resource_scores, PodAmounts, MAX_NODE_SCORE};
use super::score::{score_slots, WEIGHT_SPREAD};
use super::scoring::ScoringConfig;
use super::snapshot::Amounts;
use super::{node_basics, taint_toleration, NodeSlot, Snapshot};

/// Where a pod would land: [`super::Placement`] without the full candidate list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pick {
    /// The best node (first by name among equal best totals).
    pub(crate) node: String,
    /// Its weighted total score.
    pub(crate) score: i64,
    /// Other nodes with the same total, by name.
    pub(crate) tie_with: Vec<String>,
    /// The best node scoring lower (first by name) and its total.
    pub(crate) runner_up: Option<(String, i64)>,
}

/// True when no modelled filter rejects `slot` (what an empty
/// [`super::NodeEvaluation::failures`] says), without building the failures.
fn feasible(
    pod: &PodInfo,
    amounts: &PodAmounts,
    names: &NodeNameFilter,
    ipa: &PreFilterState<'_>,
    spread: &SpreadFilter<'_, '_>,
    slot: &NodeSlot<'_>,
) -> bool {
    if let NodeNameFilter::Only(set) = names {
        if !set.contains(&slot.node.name) {
            return false;
        }
    }
    node_basics::node_unschedulable(pod, slot.node).is_none()
        && node_basics::node_name(pod, slot.node).is_none()
        && (slot.node.taints.is_empty() || taint_toleration::filter(pod, slot.node).is_empty())
        && node_affinity::filter(pod, slot.node).is_none()
        && (pod.rare.host_ports.is_empty() || node_basics::node_ports(pod, slot).is_empty())
        && fits(pod, amounts, slot)
        && (spread.is_empty() || spread.filter(slot.node).is_none())
        && (ipa.is_empty() || ipa.filter(pod, slot.node).is_empty())
}

/// [`super::pick_node`] on a built snapshot, summarised as a [`Pick`]. With
/// the snapshot's [`NodeOrder`], only the nodes that can still score as high
/// as the runner-up are looked at, when the bounds apply to the pod (the
/// bounds are the default profile's: pass no order for another `scoring`).
///
/// With the cache's [`DefaultSpreadIndex`] too, a pod that PodTopologySpread
/// scores by the system defaults keeps the scan: a pass over the nodes says
/// which are feasible, the index gives each node's spread score, and the
/// scan's bound allows for the most a node can get from it (weight 2 × 100).
pub(crate) fn pick_in(
    snap: &Snapshot<'_>,
    pod: &PodInfo,
    order: Option<&NodeOrder>,
    scoring: &ScoringConfig,
    spread_index: Option<&DefaultSpreadIndex<'_>>,
) -> Option<Pick> {
    let names = node_affinity::prefilter_node_names(pod);
    let ipa = PreFilterState::build(snap, pod);
    let spread = SpreadFilter::build(snap, pod);
    let amounts = PodAmounts::of(pod);
    // A pod only NodeResourcesFit can reject, on a node without cordon or taint.
    let plain = matches!(names, NodeNameFilter::All)
        && pod.node_name.is_none()
        && pod.node_selector.is_empty()
        && pod.affinity.node_affinity.required.is_none()
        && pod.rare.host_ports.is_empty()
        && !amounts.other_resources
        && ipa.is_empty()
        && spread.is_empty();
    let is_feasible = |i: usize, a: &Amounts| {
        if plain && a.plain {
            fits_amounts(&amounts, a)
        } else {
            feasible(pod, &amounts, &names, &ipa, &spread, &snap.slots[i])
        }
    };
    // PodTopologySpread scores vary by node: the scan keeps only the system
    // defaults, which the index gives without a pass over the pods.
    let spread_scored = has_score_constraints(pod);
    let index = spread_index.filter(|_| spread_scored && pod.rare.topology_spread_constraints.is_empty());
    let constant = order
        .filter(|_| scoring.is_default() && NodeOrder::applies(&amounts) && (!spread_scored || index.is_some()))
        .and_then(|o| Some((o, o.constant_scores(snap, pod)?)));
    let totals: Vec<(usize, i64)> = match constant {
        Some((order, constant)) => {
            let fits = |i: usize| is_feasible(i, order.amounts_of(i));
            let defaults = match index {
                Some(ix) => {
                    let infeasible: Vec<u32> = if plain {
                        ix.lacking_room(&amounts, fits)
                    } else {
                        (0..snap.slots.len() as u32).filter(|&i| !fits(i as usize)).collect()
                    };
                    Some((ix, ix.scores(snap, pod, &infeasible, fits)?))
                }
                None => None,
            };
            let slack = if defaults.is_some() { WEIGHT_SPREAD * MAX_NODE_SCORE } else { 0 };
            let mut found = Vec::with_capacity(1024);
            let (mut best, mut second): (Option<i64>, Option<i64>) = (None, None);
            order.scan(&amounts, |i, a, known| {
                if is_feasible(i, a) {
                    let spread = defaults.as_ref().map_or(0, |(ix, d)| WEIGHT_SPREAD * d.of(i, ix.group_of(i)));
                    let total = known.unwrap_or_else(|| resource_scores(a, &amounts)) + constant + spread;
                    match best {
                        Some(b) if total > b => (best, second) = (Some(total), Some(b)),
                        Some(b) if total < b && second.is_none_or(|s| total > s) => second = Some(total),
                        None => best = Some(total),
                        _ => {}
                    }
                    if second.is_none_or(|s| total >= s) {
                        found.push((i, total));
                    }
                }
                // Nodes below the runner-up's total no longer matter.
                second.map(|s| s - constant - slack)
            });
            found
        }
        None => {
            let candidates: Vec<usize> =
                (0..snap.slots.len()).filter(|&i| is_feasible(i, &snap.slots[i].amounts)).collect();
            let slots: Vec<&NodeSlot<'_>> = candidates.iter().map(|&i| &snap.slots[i]).collect();
            let scores = score_slots(snap, pod, &slots, scoring);
            candidates.into_iter().zip(scores).map(|(i, s)| (i, s.total)).collect()
        }
    };
    if let Some(o) = order {
        return choose_ranked(snap, &totals, o);
    }
    let by_name = |a: usize, b: usize| snap.slots[a].node.name.cmp(&snap.slots[b].node.name);
    choose(snap, &totals, by_name)
}

/// [`choose`] with node names ranked as integers ([`NodeOrder::name_rank`]):
/// the same pick. With distinct names, the best's ties come out in name
/// order from a bitset of their ranks instead of a sort.
fn choose_ranked(snap: &Snapshot<'_>, totals: &[(usize, i64)], order: &NodeOrder) -> Option<Pick> {
    let rank = &order.name_rank;
    let best = totals.iter().map(|(_, t)| *t).max()?;
    let second = totals.iter().map(|(_, t)| *t).filter(|t| *t < best).max();
    let at_best = totals.iter().filter(|(_, t)| *t == best).map(|(i, _)| *i);
    let at_best: Vec<usize> = match &order.slot_by_rank {
        Some(slot_by_rank) => {
            let mut bits = vec![0u64; slot_by_rank.len().div_ceil(64)];
            for i in at_best {
                let r = rank[i] as usize;
                bits[r / 64] |= 1 << (r % 64);
            }
            let mut out = Vec::new();
            for (w, &word) in bits.iter().enumerate() {
                let mut word = word;
                while word != 0 {
                    out.push(slot_by_rank[w * 64 + word.trailing_zeros() as usize] as usize);
                    word &= word - 1;
                }
            }
            out
        }
        None => {
            let mut v: Vec<(u32, usize)> = at_best.map(|i| (rank[i], i)).collect();
            v.sort_unstable();
            v.into_iter().map(|(_, i)| i).collect()
        }
    };
    let name = |i: usize| snap.slots[i].node.name.clone();
    let runner_up = second.and_then(|s| {
        let (_, i) = totals.iter().filter(|(_, t)| *t == s).map(|(i, _)| (rank[*i], *i)).min()?;
        Some((name(i), s))
    });
    let (&node, tie_with) = at_best.split_first()?;
    Some(Pick { node: name(node), score: best, tie_with: tie_with.iter().map(|i| name(*i)).collect(), runner_up })
}

/// The best total (first by name), the others with it, and the best lower
/// total (first by name): what sorting every candidate by total, then name,
/// gives in [`super::pick_node`].
fn choose(
    snap: &Snapshot<'_>,
    totals: &[(usize, i64)],
    by_name: impl Fn(usize, usize) -> std::cmp::Ordering,
) -> Option<Pick> {
    let best = totals.iter().map(|(_, t)| *t).max()?;
    let second = totals.iter().map(|(_, t)| *t).filter(|t| *t < best).max();
    let name = |i: usize| snap.slots[i].node.name.clone();
    let mut at_best: Vec<usize> = totals.iter().filter(|(_, t)| *t == best).map(|(i, _)| *i).collect();
    at_best.sort_unstable_by(|a, b| by_name(*a, *b));
    let runner_up = second.and_then(|s| {
        let i = totals.iter().filter(|(_, t)| *t == s).map(|(i, _)| *i).min_by(|a, b| by_name(*a, *b))?;
        Some((name(i), s))
    });
    let (node, tie_with) = at_best.split_first()?;
    Some(Pick { node: name(*node), score: best, tie_with: tie_with.iter().map(|i| name(*i)).collect(), runner_up })
}
