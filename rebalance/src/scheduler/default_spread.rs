//! PodTopologySpread's system default scores for the scheduler cache,
//! without a pass over every pod: the same numbers as
//! [`super::pod_topology_spread::scores`] for a pod without constraints of
//! its own, from an index of where each controller's pods run.
//!
//! The system defaults (hostname maxSkew 3, `topology.kubernetes.io/zone`
//! maxSkew 5, ScheduleAnyway, every node kept) give a node
//! `round(host × ln(F + 2) + 2 + zone × ln(Z + 2) + 4)` (each term only when
//! the node has the key), `host` the pod's siblings on it, `zone` those in its
//! zone (nodes without the label form the zone `""`), F the feasible nodes
//! and Z the zones among them. Nodes without siblings score the same within
//! a group of equal (zone, labels present): the feasibility pass counts the
//! feasible nodes per group, so the minimum and maximum come from the groups
//! and the few nodes with siblings, not from every node.

use crate::fast_hash::{fast_map, FastMap};
use crate::model::pod::PodInfo;

use super::pod_topology_spread::{default_selector_owner, HOSTNAME, ZONE};
use super::resources_fit::MAX_NODE_SCORE;
use super::{node_affinity, Snapshot};

/// `(namespace, controller kind, controller name)`.
type ControllerKey<'a> = (&'a str, &'a str, &'a str);

/// Where each controller's pods run, and each node's zone, kept up to date
/// by [`super::SchedulerCache`].
pub(crate) struct DefaultSpreadIndex<'a> {
    /// Per controller: slot → its pods there (not terminating).
    controllers: FastMap<ControllerKey<'a>, FastMap<u32, i64>>,
    /// Per slot: its zone's id (`""` for a node without the label).
    zone: Vec<u32>,
    /// Per slot: the node has the zone label.
    has_zone: Vec<bool>,
    /// Per slot: the node has the hostname label.
    has_host: Vec<bool>,
    /// Number of zone ids.
    zones: usize,
    /// Per slot: its group (zone, has_zone, has_host).
    group: Vec<u32>,
    /// Per group: (zone id, has_zone, has_host).
    groups: Vec<(u32, bool, bool)>,
}

impl<'a> DefaultSpreadIndex<'a> {
    /// The index of `snap`'s nodes and pods.
    pub(crate) fn new(snap: &Snapshot<'a>) -> DefaultSpreadIndex<'a> {
        let n = snap.slots.len();
        let mut zone_ids: FastMap<&str, u32> = fast_map(8);
        let mut group_ids: FastMap<(u32, bool, bool), u32> = fast_map(8);
        let mut index = DefaultSpreadIndex {
            controllers: fast_map(0),
            zone: Vec::with_capacity(n),
            has_zone: Vec::with_capacity(n),
            has_host: Vec::with_capacity(n),
            zones: 0,
            group: Vec::with_capacity(n),
            groups: Vec::new(),
        };
        for slot in &snap.slots {
            let labels = &slot.node.labels;
            let value = labels.get(ZONE).map_or("", String::as_str);
            let next = zone_ids.len() as u32;
            let z = *zone_ids.entry(value).or_insert(next);
            let key = (z, labels.contains_key(ZONE), labels.contains_key(HOSTNAME));
            let next = group_ids.len() as u32;
            let g = *group_ids.entry(key).or_insert_with(|| {
                index.groups.push(key);
                next
            });
            index.zone.push(z);
            index.has_zone.push(key.1);
            index.has_host.push(key.2);
            index.group.push(g);
        }
        index.zones = zone_ids.len();
        for (i, slot) in snap.slots.iter().enumerate() {
            for p in &slot.pods {
                index.add(i, p);
            }
        }
        index
    }

    /// Counts `p`, now on slot `slot`.
    pub(crate) fn add(&mut self, slot: usize, p: &'a PodInfo) {
        if p.is_terminating() {
            return;
        }
        if let Some(o) = default_selector_owner(p) {
            let key = (p.namespace.as_str(), o.kind.as_str(), o.name.as_str());
            *self.controllers.entry(key).or_default().entry(slot as u32).or_insert(0) += 1;
        }
    }

    /// The system default scores of `pod` given which slots are feasible,
    /// or `None` when the defaults do not apply to it (it has constraints of
    /// its own, or no controller they read).
    pub(crate) fn scores(&self, snap: &Snapshot<'_>, pod: &PodInfo, feasible: &[bool]) -> Option<DefaultScores> {
        if !pod.topology_spread_constraints.is_empty() {
            return None;
        }
        let owner = default_selector_owner(pod)?;
        let siblings = self.controllers.get(&(pod.namespace.as_str(), owner.kind.as_str(), owner.name.as_str()));
        let mut per_group = vec![0i64; self.groups.len()];
        let mut zone_seen = vec![false; self.zones];
        let mut feasible_count = 0i64;
        for (i, _) in feasible.iter().enumerate().filter(|(_, f)| **f) {
            feasible_count += 1;
            per_group[self.group[i] as usize] += 1;
            zone_seen[self.zone[i] as usize] = true;
        }
        let zones_seen = zone_seen.iter().filter(|s| **s).count();
        let w_host = ((feasible_count + 2) as f64).ln();
        let w_zone = ((zones_seen + 2) as f64).ln();
        // Zone counts: siblings on nodes the pod's node affinity admits
        // (nodeAffinityPolicy Honor), in zones some feasible node is in.
        let mut zone_count = vec![0i64; self.zones];
        for (&slot, &n) in siblings.into_iter().flatten() {
            let z = self.zone[slot as usize] as usize;
            if zone_seen[z] && node_affinity::filter(pod, snap.slots[slot as usize].node).is_none() {
                zone_count[z] += n;
            }
        }
        let raw = |host: i64, z: u32, has_zone: bool, has_host: bool| -> i64 {
            let mut score = 0.0f64;
            if has_host {
                score += host as f64 * w_host + 2.0;
            }
            if has_zone {
                score += zone_count[z as usize] as f64 * w_zone + 4.0;
            }
            score.round() as i64
        };
        let group_raw: Vec<i64> = self.groups.iter().map(|&(z, hz, hh)| raw(0, z, hz, hh)).collect();
        let mut touched: FastMap<u32, i64> = fast_map(siblings.map_or(0, FastMap::len));
        let (mut min, mut max) = (i64::MAX, i64::MIN);
        for (&slot, &n) in siblings.into_iter().flatten() {
            let i = slot as usize;
            if !feasible[i] {
                continue;
            }
            let r = raw(n, self.zone[i], self.has_zone[i], self.has_host[i]);
            touched.insert(slot, r);
            per_group[self.group[i] as usize] -= 1;
            (min, max) = (min.min(r), max.max(r));
        }
        for (g, count) in per_group.iter().enumerate() {
            if *count > 0 {
                (min, max) = (min.min(group_raw[g]), max.max(group_raw[g]));
            }
        }
        Some(DefaultScores { touched, group_raw, min, max: max.max(0) })
    }

    /// Slot `i`'s group.
    pub(crate) fn group_of(&self, i: usize) -> u32 {
        self.group[i]
    }
}

/// The system default raw scores of one pod, normalised on demand.
pub(crate) struct DefaultScores {
    touched: FastMap<u32, i64>,
    group_raw: Vec<i64>,
    min: i64,
    max: i64,
}

impl DefaultScores {
    /// The normalised score (0–100) of feasible slot `i` of group `group`
    /// (upstream `NormalizeScore`).
    pub(crate) fn of(&self, i: usize, group: u32) -> i64 {
        let raw = self.touched.get(&(i as u32)).copied().unwrap_or(self.group_raw[group as usize]);
        if self.max == 0 {
            MAX_NODE_SCORE
        } else {
            MAX_NODE_SCORE * (self.max + self.min - raw) / self.max
        }
    }
}
