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
//! a group of equal (zone, labels present): the minimum and maximum come
//! from the groups with a feasible node and from the few nodes with
//! siblings. The feasible nodes are counted by their complement: for a pod
//! only NodeResourcesFit can reject, the nodes without cordon or taint that
//! lack room come from the nodes kept ordered by free cpu, memory and
//! ephemeral storage and the full ones (a few, not every node); the others
//! are checked one by one.

use std::collections::BTreeSet;

use crate::fast_hash::{fast_map, FastMap};
use crate::model::pod::PodInfo;

use super::pod_topology_spread::{default_selector_owner, HOSTNAME, ZONE};
use super::resources_fit::{PodAmounts, MAX_NODE_SCORE};
use super::snapshot::Amounts;
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
    /// Per group: its nodes.
    group_size: Vec<i64>,
    /// Per zone id: its nodes.
    zone_size: Vec<i64>,
    /// The nodes' room, for the feasibility of pods only NodeResourcesFit can reject.
    room: Room,
}

/// Free cpu, memory and ephemeral storage (allocatable − requested) of the
/// nodes without cordon or taint, kept ordered, and the full ones: what
/// [`super::resources_fit::fits_amounts`] reads.
struct Room {
    by_cpu: BTreeSet<(i64, u32)>,
    by_memory: BTreeSet<(i64, u32)>,
    by_ephemeral: BTreeSet<(i64, u32)>,
    /// No pod slot left.
    full: BTreeSet<u32>,
    /// Per slot: its keys in the sets (`None`: cordoned or tainted, checked one by one).
    keys: Vec<Option<(i64, i64, i64)>>,
    /// The cordoned or tainted slots.
    others: Vec<u32>,
}

impl Room {
    fn keys_of(a: &Amounts) -> (i64, i64, i64) {
        (
            a.alloc_cpu.saturating_sub(a.requested_cpu),
            a.alloc_memory.saturating_sub(a.requested_memory),
            a.alloc_ephemeral.saturating_sub(a.requested_ephemeral),
        )
    }

    fn set(&mut self, i: usize, a: &Amounts) {
        let slot = i as u32;
        if let Some((c, m, e)) = self.keys[i] {
            self.by_cpu.remove(&(c, slot));
            self.by_memory.remove(&(m, slot));
            self.by_ephemeral.remove(&(e, slot));
        }
        let (c, m, e) = Self::keys_of(a);
        self.by_cpu.insert((c, slot));
        self.by_memory.insert((m, slot));
        self.by_ephemeral.insert((e, slot));
        self.keys[i] = Some((c, m, e));
        if a.pods.saturating_add(1) > a.alloc_pods {
            self.full.insert(slot);
        } else {
            self.full.remove(&slot);
        }
    }
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
            group_size: Vec::new(),
            zone_size: Vec::new(),
            room: Room {
                by_cpu: BTreeSet::new(),
                by_memory: BTreeSet::new(),
                by_ephemeral: BTreeSet::new(),
                full: BTreeSet::new(),
                keys: vec![None; n],
                others: Vec::new(),
            },
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
        index.group_size = vec![0; index.groups.len()];
        index.zone_size = vec![0; index.zones];
        for i in 0..n {
            index.group_size[index.group[i] as usize] += 1;
            index.zone_size[index.zone[i] as usize] += 1;
        }
        for (i, slot) in snap.slots.iter().enumerate() {
            for p in &slot.pods {
                index.add(i, p);
            }
            if slot.amounts.plain {
                index.room.set(i, &slot.amounts);
            } else {
                index.room.others.push(i as u32);
            }
        }
        index
    }

    /// Takes slot `i`'s new amounts after a pod was bound there.
    pub(crate) fn update(&mut self, i: usize, a: &Amounts) {
        if self.room.keys[i].is_some() {
            self.room.set(i, a);
        }
    }

    /// The slots a pod only NodeResourcesFit can reject does not fit, each
    /// once: the nodes without cordon or taint with less free cpu, memory or
    /// ephemeral storage than the pod requests, or no pod slot; the others
    /// when `fits` says so.
    pub(crate) fn lacking_room(&self, pod: &PodAmounts, fits: impl Fn(usize) -> bool) -> Vec<u32> {
        let room = &self.room;
        let mut out: Vec<u32> = room.full.iter().copied().collect();
        for (set, requested) in
            [(&room.by_cpu, pod.requests[0]), (&room.by_memory, pod.requests[1]), (&room.by_ephemeral, pod.requests[2])]
        {
            if requested > 0 {
                out.extend(set.range(..(requested, 0)).map(|&(_, i)| i));
            }
        }
        out.sort_unstable();
        out.dedup();
        out.extend(room.others.iter().copied().filter(|&i| !fits(i as usize)));
        out
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

    /// The system default scores of `pod` given the slots it does not fit
    /// (each once) and a check of one slot, or `None` when the defaults do
    /// not apply to it (it has constraints of its own, or no controller they read).
    pub(crate) fn scores(
        &self,
        snap: &Snapshot<'_>,
        pod: &PodInfo,
        infeasible: &[u32],
        feasible: impl Fn(usize) -> bool,
    ) -> Option<DefaultScores> {
        if !pod.rare.topology_spread_constraints.is_empty() {
            return None;
        }
        let owner = default_selector_owner(pod)?;
        let siblings = self.controllers.get(&(pod.namespace.as_str(), owner.kind.as_str(), owner.name.as_str()));
        let mut per_group = self.group_size.clone();
        let mut per_zone = self.zone_size.clone();
        for &i in infeasible {
            per_group[self.group[i as usize] as usize] -= 1;
            per_zone[self.zone[i as usize] as usize] -= 1;
        }
        let feasible_count = self.group.len() as i64 - infeasible.len() as i64;
        let zone_seen: Vec<bool> = per_zone.iter().map(|n| *n > 0).collect();
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
            if !feasible(i) {
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
