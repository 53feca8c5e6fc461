//! What every plugin of one descheduling cycle shares: the snapshot, the
//! nodes the cycle works on, the pods per node, the eviction limits and
//! counters, and the pods already evicted; plus the steps every plugin
//! takes the same way (skip a pod with a reason, try an eviction against
//! the cycle's limits).
//!
//! Source: descheduler v0.36 `runProfiles` and `PodEvictor`
//! (descheduler-plugins.md §1.1): one evictor per cycle, shared by every
//! profile and plugin. Pods evicted earlier in the cycle are hidden from
//! later plugins as candidates (upstream still lists them until its
//! informer sees the eviction, then DefaultEvictor says "pod is
//! terminating"; timing-dependent, §1.1 item 7) but still count toward
//! node usage and as existing pods (anti-affinity partners, spread domains,
//! duplicates), as they would in the informer.
//!
//! An eviction a PodDisruptionBudget refuses (429) is listed with
//! `refused_by_pdb`, counted against no limit and not hidden ([`super::pdb`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::rc::Rc;

use super::evictor::Evictor;
use super::limits::{Counters, LimitHit};
use super::node_fit::FitState;
use super::order::prefers_no_eviction;
use super::pdb::{refusal_text, refusing_pdb, REQUEST_EVICT_ONLY_ANNOTATION};
use super::plan::{Eviction, PluginRun, PodRef, SkipReason, SkippedPod};
use super::{PlanOptions, Snapshot};
use crate::model::node::NodeInfo;
use crate::model::resources::{ResourceList, CPU, MEMORY, PODS};
use crate::policy::Profile;

/// What a run shares with the rest of the cycle.
pub(crate) struct Cycle<'a> {
    pub(crate) snapshot: &'a Snapshot,
    /// Considered nodes, sorted by name.
    pub(crate) nodes: Vec<&'a NodeInfo>,
    /// Pods counting toward each considered node (snapshot indices):
    /// bound there and not Succeeded/Failed — upstream `ListPodsOnANode`.
    pub(crate) pods_by_node: BTreeMap<&'a str, Vec<usize>>,
    /// Every pod bound to each considered node, in any phase — upstream
    /// `ListAllPodsOnANode` (PodLifeTime, RemoveFailedPods,
    /// RemovePodsHavingTooManyRestarts).
    pub(crate) all_pods_by_node: BTreeMap<&'a str, Vec<usize>>,
    pub(crate) options: PlanOptions,
    pub(crate) counters: Counters,
    /// Pods evicted by earlier plugins or profiles in this cycle.
    pub(crate) evicted: BTreeSet<usize>,
    pub(crate) next_order: usize,
    pub(crate) warnings: Vec<String>,
    /// Each node's requested amounts given instead of its pods
    /// ([`super::classify_nodes`]): the run classifies and stops.
    pub(crate) usage_given: Option<&'a BTreeMap<String, ResourceList>>,
    /// Each profile's DefaultEvictor (by the profile's address) and the
    /// warnings building it raised: see [`Cycle::evictor`].
    pub(crate) evictors: HashMap<usize, (Rc<Evictor<'a>>, Vec<String>)>,
    /// See [`Cycle::fit_state`].
    pub(crate) fit_state: Option<Rc<FitState<'a>>>,
    /// The pod [`super::explain_pod`] asks about (snapshot index): its
    /// not-matching reasons are kept ([`Cycle::not_matching`]).
    pub(crate) explained: Option<usize>,
}

/// The [`PodRef`] of snapshot pod `index`.
pub(crate) fn pod_ref(snapshot: &Snapshot, index: usize) -> PodRef {
    let p = &snapshot.pods[index];
    PodRef { namespace: p.namespace.clone(), name: p.name.clone(), uid: p.uid.clone(), index }
}

impl<'a> Cycle<'a> {
    /// The profile's DefaultEvictor (its Filter and PreEvictionFilter);
    /// warnings it raises (an unresolvable priority threshold) go to the plan
    /// each time it is asked for, as when it was built per plugin. Built once
    /// per profile and cycle (it indexes every pod); its nodeFit shares
    /// [`Cycle::fit_state`].
    pub(crate) fn evictor(&mut self, profile: &Profile) -> Rc<Evictor<'a>> {
        let key = std::ptr::from_ref(profile) as usize;
        if let Some((evictor, warnings)) = self.evictors.get(&key) {
            self.warnings.extend(warnings.iter().cloned());
            return Rc::clone(evictor);
        }
        let args = profile.default_evictor();
        let state = args.node_fit.then(|| self.fit_state());
        let mut warnings = Vec::new();
        let evictor = Rc::new(Evictor::new(self.snapshot, args, &mut warnings, state));
        self.warnings.extend(warnings.iter().cloned());
        self.evictors.insert(key, (Rc::clone(&evictor), warnings));
        evictor
    }

    /// What is on every node for nodeFit, built on first use and shared by
    /// every nodeFit of the cycle.
    pub(crate) fn fit_state(&mut self) -> Rc<FitState<'a>> {
        let snapshot = self.snapshot;
        Rc::clone(self.fit_state.get_or_insert_with(|| Rc::new(FitState::new(&snapshot.pods))))
    }

    /// Records that pod `index` on `node` was not evicted, and why.
    pub(crate) fn skip(&self, run: &mut PluginRun, index: usize, node: &str, reason: SkipReason) {
        let (message, upstream_message) = reason.message();
        run.skipped.push(SkippedPod {
            pod: pod_ref(self.snapshot, index),
            node: node.to_string(),
            reason,
            message,
            upstream_message,
        });
    }

    /// Counts pod `index`, which `run`'s plugin looked at and which does not
    /// break its rule ([`PluginRun::not_matching`]): not listed as a skip.
    /// `why` (the rule's numbers for this pod) is computed only for the pod
    /// being explained ([`PluginRun::explained_not_matching`]).
    pub(crate) fn not_matching(&self, run: &mut PluginRun, index: usize, why: impl FnOnce() -> String) {
        run.not_matching += 1;
        if self.explained == Some(index) {
            run.explained_not_matching = Some(why());
        }
    }

    /// Tries to evict pod `index` from `node` for `run`, the way every
    /// plugin but the utilization ones does (`PodEvictor.EvictPod`): the
    /// cycle's limits are checked total → node → namespace; when one is
    /// reached the pod is skipped with it and the hit returned (total: the
    /// plugin ends; node: the plugin moves on as it documents; namespace:
    /// next pod). Otherwise the eviction is counted, the pod hidden from
    /// later plugins, and an [`Eviction`] with `rule` (why this plugin
    /// chose the pod, with its numbers) and `rank_on_node` (1-based
    /// position in the plugin's order) appended. `frees` holds the pod's
    /// cpu (millicores), memory (bytes) requests and 1 pod.
    pub(crate) fn evict(
        &mut self,
        run: &mut PluginRun,
        index: usize,
        node: &str,
        rank_on_node: usize,
        rule: String,
    ) -> Result<(), LimitHit> {
        let pod = &self.snapshot.pods[index];
        if let Some(hit) = self.counters.check(node, &pod.namespace) {
            let reason = match hit {
                LimitHit::Total => SkipReason::MaxTotal,
                LimitHit::Node => SkipReason::MaxPerNode,
                LimitHit::Namespace => SkipReason::MaxPerNamespace,
            };
            self.skip(run, index, node, reason);
            return Err(hit);
        }
        if self.refused(run, index, node, rank_on_node, &rule) {
            return Ok(());
        }
        self.counters.record(node, &pod.namespace);
        self.evicted.insert(index);
        self.next_order += 1;
        let mut frees = ResourceList::new();
        frees.set(CPU, pod.requests.get(CPU));
        frees.set(MEMORY, pod.requests.get(MEMORY));
        frees.set(PODS, 1);
        run.evictions.push(Eviction {
            order: self.next_order,
            pod: pod_ref(self.snapshot, index),
            source_node: node.to_string(),
            profile: run.profile.clone(),
            plugin: run.plugin.clone(),
            rank_on_node,
            rule,
            priority: pod.priority,
            qos: pod.qos,
            prefer_no_eviction: prefers_no_eviction(pod),
            frees,
            budget_after: ResourceList::new(),
            node_usage_after: ResourceList::new(),
            counted: self.counters.counts(node, &pod.namespace),
            refused_by_pdb: None,
        });
        Ok(())
    }

    /// When a PodDisruptionBudget allows no disruption for pod `index`
    /// ([`super::pdb`]): appends the eviction descheduler will try and the
    /// API refuse (nothing counted, freed or hidden from later plugins),
    /// warns, and returns true. Also warns when the pod asks for an
    /// eviction in background (modelled with the gate off). Called after
    /// the limit checks, as `EvictPod` calls the API after them.
    pub(crate) fn refused(
        &mut self,
        run: &mut PluginRun,
        index: usize,
        node: &str,
        rank_on_node: usize,
        rule: &str,
    ) -> bool {
        let pod = &self.snapshot.pods[index];
        if pod.annotations.contains_key(REQUEST_EVICT_ONLY_ANNOTATION) {
            self.warnings.push(format!(
                "{} has {REQUEST_EVICT_ONLY_ANNOTATION}: with descheduler's EvictionsInBackground feature gate \
                 (off by default) its controller would answer the eviction with an evacuation, counted as an \
                 eviction request against the same limits; kdrift plans it with the gate off, as an ordinary eviction",
                pod.key()
            ));
        }
        let Some((pdb, how)) = refusing_pdb(self.snapshot, index, &self.evicted) else {
            return false;
        };
        self.next_order += 1;
        self.warnings.push(format!(
            "eviction #{} of {} ({}): {} — {how}: it frees nothing and lands nowhere, and descheduler v0.36 \
             counts it against no limit (PodEvictor counts only evictions the API admits)",
            self.next_order,
            pod.key(),
            run.plugin,
            refusal_text(&pdb)
        ));
        run.evictions.push(Eviction {
            order: self.next_order,
            pod: pod_ref(self.snapshot, index),
            source_node: node.to_string(),
            profile: run.profile.clone(),
            plugin: run.plugin.clone(),
            rank_on_node,
            rule: rule.to_string(),
            priority: pod.priority,
            qos: pod.qos,
            prefer_no_eviction: prefers_no_eviction(pod),
            frees: ResourceList::new(),
            budget_after: ResourceList::new(),
            node_usage_after: ResourceList::new(),
            counted: self.counters.counts(node, &pod.namespace),
            refused_by_pdb: Some(pdb),
        });
        true
    }
}
