//! A scheduler snapshot kept up to date pod by pod, for placing many pods in
//! a row (the landing simulation): built once, then [`SchedulerCache::bind`]
//! adds each placed pod to its node, as kube-scheduler's cache assumes a pod
//! on its node before the next scheduling cycle.
//!
//! [`SchedulerCache::pick`] gives what [`super::pick_node`] gives on a
//! [`ClusterState`] holding the same pods (the best node, its ties, the
//! runner-up) without rebuilding the per-node sums for every pod and without
//! naming every candidate ([`super::pick`]), looking at the nodes from the
//! emptiest and stopping when no further node can reach the runner-up's
//! score ([`super::order`]). When the cluster holds a pod that is
//! the incoming pod itself (same uid, or same namespace/name), the slots are
//! rebuilt without it first, as [`super::pick_node`] leaves it out.
//!
//! Equivalence with [`super::pick_node`] / [`super::scheduler_message`] is
//! checked by property tests (`scheduler/cache_tests.rs`).

use crate::fast_hash::{fast_map, FastMap};
use crate::model::node::NodeInfo;
use crate::model::pod::PodInfo;
use crate::model::resources::{ResourceList, PODS};

use super::default_spread::DefaultSpreadIndex;
use super::order::NodeOrder;
use super::pick::{pick_in, Pick};
use super::scoring::ScoringConfig;
use super::{message_in, prefilter_rejection, Snapshot};

/// The identities of the pods in the snapshot, to know when an incoming pod
/// is already there ([`super::snapshot::same_pod`]): uids, and the names of
/// the pods without one. An incoming pod without a uid is looked up by a
/// pass over the pods (rare: every API object has a uid).
struct Identities<'a> {
    uids: FastMap<&'a str, u32>,
    names_without_uid: FastMap<(&'a str, &'a str), u32>,
}

impl<'a> Identities<'a> {
    fn remember(&mut self, p: &'a PodInfo) {
        match &p.uid {
            Some(u) => *self.uids.entry(u.as_str()).or_insert(0) += 1,
            None => *self.names_without_uid.entry((p.namespace.as_str(), p.name.as_str())).or_insert(0) += 1,
        }
    }

    /// Some pod of `snap` (whose pods were all remembered) is the same pod as `p`.
    fn holds(&self, snap: &Snapshot<'_>, p: &PodInfo) -> bool {
        match &p.uid {
            Some(u) => {
                self.uids.contains_key(u.as_str())
                    || self.names_without_uid.contains_key(&(p.namespace.as_str(), p.name.as_str()))
            }
            None => {
                snap.slots.iter().flat_map(|s| s.pods.iter()).any(|e| e.namespace == p.namespace && e.name == p.name)
            }
        }
    }
}

/// The snapshot of a cluster that grows by [`SchedulerCache::bind`].
pub(crate) struct SchedulerCache<'a> {
    snap: Snapshot<'a>,
    identities: Identities<'a>,
    order: NodeOrder,
    /// How nodes are scored ([`SchedulerCache::with_scoring`]; default profile).
    scoring: ScoringConfig,
    spread: DefaultSpreadIndex<'a>,
}

impl<'a> SchedulerCache<'a> {
    /// The cluster of `nodes` with `pods` (those that count toward usage on a
    /// known node), as [`ClusterState::new`] would hold them.
    pub(crate) fn new(nodes: &'a [NodeInfo], pods: impl IntoIterator<Item = &'a PodInfo>) -> SchedulerCache<'a> {
        let snap = Snapshot::from_parts(nodes, pods, None);
        let count = snap.slots.iter().map(|s| s.pods.len()).sum();
        let mut identities = Identities { uids: fast_map(count), names_without_uid: fast_map(0) };
        for p in snap.slots.iter().flat_map(|s| s.pods.iter()) {
            identities.remember(p);
        }
        let order = NodeOrder::new(&snap);
        let spread = DefaultSpreadIndex::new(&snap);
        SchedulerCache { snap, identities, order, scoring: ScoringConfig::default(), spread }
    }

    /// Scores with `scoring` (NodeResourcesFit's strategy, plugin weights)
    /// instead of the default profile: [`super::pick_node_with`]. The
    /// bounded scan from the emptiest node holds for the default profile
    /// only; with another scoring every feasible node is scored.
    pub(crate) fn with_scoring(mut self, scoring: ScoringConfig) -> SchedulerCache<'a> {
        self.scoring = scoring;
        self
    }

    /// Adds `pod` on `node`, as if it were bound there and running (the
    /// pod's own `nodeName` and phase are not read). A node the cluster does
    /// not have is ignored, as the scheduler ignores pods bound to one.
    pub(crate) fn bind(&mut self, pod: &'a PodInfo, node: &str) {
        if let Some(&i) = self.snap.index.get(node) {
            self.snap.push(i, pod);
            self.identities.remember(pod);
            self.order.update(i, self.snap.slots[i].amounts);
            self.spread.add(i, pod);
            self.spread.update(i, &self.snap.slots[i].amounts);
        }
    }

    /// `node`'s usage as [`ClusterState::usage`] counts it.
    pub(crate) fn usage(&self, node: &str) -> ResourceList {
        match self.snap.index.get(node) {
            Some(&i) => self.snap.slots[i].usage(),
            None => ResourceList::from_pairs(&[(PODS, 0)]),
        }
    }

    /// [`super::pick_node`] for `pod` on the cluster as it is now.
    pub(crate) fn pick(&self, pod: &PodInfo) -> Option<Pick> {
        if self.identities.holds(&self.snap, pod) {
            pick_in(&self.snap.without(pod), pod, None, &self.scoring, None)
        } else {
            let order = self.scoring.is_default().then_some(&self.order);
            pick_in(&self.snap, pod, order, &self.scoring, Some(&self.spread))
        }
    }

    /// [`super::scheduler_message`] for `pod` on the cluster as it is now.
    pub(crate) fn message(&self, pod: &PodInfo) -> Option<String> {
        if self.snap.slots.is_empty() {
            return Some("no nodes available to schedule pods".to_string());
        }
        if let Some(reason) = prefilter_rejection(pod) {
            return Some(format!("0/{} nodes are available: {reason}.", self.snap.slots.len()));
        }
        if self.identities.holds(&self.snap, pod) {
            message_in(&self.snap.without(pod), pod)
        } else {
            message_in(&self.snap, pod)
        }
    }
}
