//! One LowNodeUtilization run (the cycle's shared state is in
//! [`super::cycle`]): classify, budget, then drain the overutilized
//! nodes pod by pod.
//!
//! Source: descheduler v0.36 `LowNodeUtilization.Balance`,
//! `evictPodsFromSourceNodes` and `evictPods`. Per pod, in order:
//! `evictionLimits.node` reached → the node is done; (opt-in
//! `skip_zero_request`); the pod must tolerate every taint of at least one
//! underutilized node, with upstream's extra condition that it has at least
//! as many tolerations as that node has taints (`utils.PodToleratesTaints`);
//! `evictableNamespaces.exclude`; PreEvictionFilter (nodeFit,
//! namespaceLabelSelector); then the cycle limits (total ends the run, node
//! ends the node, namespace skips the pod). After each eviction the pod's
//! requests leave the node's usage and the shared budget; the loop goes on
//! while the node is above its cap on some resource and every budget
//! resource is > 0.
//!
//! The per-pod loop ([`Cycle::drain`], upstream `evictPodsFromSourceNodes` /
//! `evictPods`) and the node states ([`Cycle::node_states`]) are shared with
//! HighNodeUtilization (`plugins::high_node_utilization`); a [`Drain`] holds
//! what differs (stop rule, plugin node limit, extra removable check).

use super::budget::{above_target, caps, exhausted, frees};
use super::classify::{early_exit, percent, report, thresholds, tracked_resources, tracked_usage, usage_of, NodeState};
use super::cycle::{pod_ref, Cycle};
use super::evictor::{Evictor, FilterOutcome};
use super::limits::LimitHit;
use super::metrics::{MetricsRun, PodUsage};
use super::order::{compare_pods, compare_sources, prefers_no_eviction, rule};
use super::plan::{Budget, Eviction, NodeClass, PluginRun, SkipReason, SourceNode, StopReason};
use crate::model::node::Taint;
use crate::model::pod::{tolerations_tolerate, PodInfo};
use crate::model::resources::{ResourceList, PODS};
use crate::policy::{ExtensionPoint, LowNodeUtilizationArgs, Profile, LOW_NODE_UTILIZATION};

/// `utils.PodToleratesTaints` over the destination nodes' taints: some node
/// whose every taint the pod tolerates, counted only when the pod has at
/// least as many tolerations as the node has taints (upstream's quirk).
pub(crate) fn tolerates_some(pod: &PodInfo, destinations: &[&[Taint]]) -> bool {
    destinations.iter().any(|taints| {
        pod.tolerations.len() >= taints.len() && taints.iter().all(|t| tolerations_tolerate(&pod.tolerations, t))
    })
}

fn stop_condition(usage: &ResourceList, caps: &ResourceList, budget: &ResourceList) -> Option<StopReason> {
    if above_target(usage, caps).is_empty() {
        return Some(StopReason::NoLongerAboveTarget);
    }
    budget_gone(budget)
}

/// HighNodeUtilization's `continueEvictionCond` (and the second half of
/// LowNodeUtilization's): stop once some budget resource is <= 0.
pub(crate) fn budget_gone(budget: &ResourceList) -> Option<StopReason> {
    let gone = exhausted(budget);
    (!gone.is_empty()).then_some(StopReason::BudgetExhausted { resources: gone })
}

/// What differs between LowNodeUtilization and HighNodeUtilization in the
/// shared eviction loop ([`Cycle::drain`]).
pub(crate) struct Drain<'s> {
    /// The plugin name the evictions carry.
    pub(crate) plugin: &'static str,
    /// Tracked resources (what an eviction frees).
    pub(crate) tracked: &'s [String],
    /// The taints of the nodes pods may go to (`utils.PodToleratesTaints`).
    pub(crate) destinations: Vec<&'s [Taint]>,
    /// `evictableNamespaces.exclude`.
    pub(crate) excluded: &'s [String],
    /// `evictionLimits.node` (LowNodeUtilization only).
    pub(crate) node_limit: Option<u32>,
    /// kdrift's opt-in `skip_zero_request` (LowNodeUtilization only).
    pub(crate) skip_zero_request: bool,
    /// An extra check making a Filter-passing pod non-removable (HighNodeUtilization's
    /// `OnlyThresholdingResources`).
    pub(crate) removable: &'s dyn Fn(&PodInfo) -> Option<SkipReason>,
    /// `continueEvictionCond` negated: `(node usage, node caps, budget)` → why to stop.
    pub(crate) stop: &'s dyn Fn(&ResourceList, &ResourceList, &ResourceList) -> Option<StopReason>,
    /// The eviction's `rule` text: `(pod, rank, removable count, node)`.
    pub(crate) rule: &'s dyn Fn(&PodInfo, usize, usize, &str) -> String,
    /// With `metricsUtilization`: each pod's measured usage by snapshot index
    /// (upstream `usageClient.podUsage`); `None`: its requests.
    pub(crate) pod_usage: Option<&'s dyn Fn(usize) -> PodUsage>,
    /// kdrift's opt-in `rank_by_usage` (see [`super::PlanOptions`]).
    pub(crate) rank_by_usage: bool,
}

impl<'a> Cycle<'a> {
    /// The considered nodes with their pods, usage and percent of the
    /// `tracked` resources (usage from the pods' requests, or as given to
    /// [`super::classify_nodes`]).
    pub(crate) fn node_states(&self, tracked: &[String]) -> Vec<NodeState<'a>> {
        let snapshot = self.snapshot;
        self.nodes
            .iter()
            .map(|node| {
                let pods = self.pods_by_node.get(node.name.as_str()).cloned().unwrap_or_default();
                let usage = match self.usage_given {
                    Some(given) => tracked_usage(given.get(&node.name), tracked),
                    None => usage_of(pods.iter().map(|i| &snapshot.pods[*i]), tracked),
                };
                let percent =
                    tracked.iter().map(|r| (r.clone(), percent(usage.get(r), node.allocatable.get_opt(r)))).collect();
                NodeState { node, pods, usage, percent, measured: None }
            })
            .collect()
    }
}

impl Cycle<'_> {
    /// Runs LowNodeUtilization for `profile` with `args`: on measured usage
    /// when `metricsUtilization` is set and the snapshot has it
    /// ([`super::metrics`]), else on requests.
    pub(crate) fn run(&mut self, profile: &Profile, args: &LowNodeUtilizationArgs) -> PluginRun {
        if let Some(m) = &args.metrics_utilization {
            if let Some(run) = self.run_metrics(profile, args, m) {
                return run;
            }
        }
        let tracked = tracked_resources(args);
        let states = self.node_states(&tracked);
        self.balance(profile, args, tracked, &states, None)
    }

    /// LowNodeUtilization's Balance on `states` (usage from requests, or
    /// measured with `metrics`): classify, budget, drain.
    pub(crate) fn balance(
        &mut self,
        profile: &Profile,
        args: &LowNodeUtilizationArgs,
        tracked: Vec<String>,
        states: &[NodeState<'_>],
        metrics: Option<MetricsRun<'_>>,
    ) -> PluginRun {
        let applied = thresholds(args, states);
        let reports: Vec<_> = states.iter().map(|s| report(s, &applied, &tracked)).collect();
        let of_class = |c: NodeClass| -> Vec<usize> { (0..states.len()).filter(|i| reports[*i].class == c).collect() };
        let under = of_class(NodeClass::Underutilized);
        let mut over = of_class(NodeClass::Overutilized);
        let mut run = PluginRun::new(&profile.name, LOW_NODE_UTILIZATION, ExtensionPoint::Balance);
        run.early_exit = early_exit(under.len(), over.len(), states.len(), args.number_of_nodes);
        run.thresholds = applied.clone();
        run.tracked_resources = tracked.clone();
        run.nodes = reports;
        run.usage_source = metrics.as_ref().map(|m| m.source.clone());
        if run.early_exit.is_some() || self.usage_given.is_some() {
            return run;
        }
        let node_caps: Vec<ResourceList> = states.iter().map(|s| caps(s.node, &tracked, &applied.high)).collect();
        let mut budget = ResourceList::new();
        for r in &tracked {
            budget.set(r, 0);
        }
        for &i in &under {
            budget.add(&node_caps[i].minus(&states[i].usage));
        }
        let initial = budget.clone();
        over.sort_by(|a, b| {
            compare_sources(
                (states[*a].node.name.as_str(), run.nodes[*a].usage_sum),
                (states[*b].node.name.as_str(), run.nodes[*b].usage_sum),
            )
        });
        let evictor = self.evictor(profile);
        let rank = self.options.rank_by_usage;
        let drain = Drain {
            plugin: LOW_NODE_UTILIZATION,
            tracked: &tracked,
            destinations: under.iter().map(|&i| states[i].node.taints.as_slice()).collect(),
            excluded: args.excluded_namespaces(),
            node_limit: args.node_eviction_limit(),
            skip_zero_request: self.options.skip_zero_request,
            removable: &|_| None,
            stop: &stop_condition,
            rule: &rule,
            pod_usage: metrics.as_ref().map(|m| &*m.pod_usage),
            rank_by_usage: rank && metrics.as_ref().is_some_and(|m| m.ranks),
        };
        self.drain(&mut run, &evictor, &drain, &over, states, &node_caps, &mut budget);
        run.budget = Some(Budget { initial, remaining: budget });
        run
    }

    /// The shared eviction loop (upstream `evictPodsFromSourceNodes` +
    /// `evictPods`): each source node in `sources` order, its removable pods
    /// in [`compare_pods`] order, until `drain.stop` says so.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn drain(
        &mut self,
        run: &mut PluginRun,
        evictor: &Evictor<'_>,
        drain: &Drain<'_>,
        sources: &[usize],
        states: &[NodeState<'_>],
        node_caps: &[ResourceList],
        budget: &mut ResourceList,
    ) {
        let snapshot = self.snapshot;
        let mut run_ended = false;
        for &src in sources {
            let state = &states[src];
            let name = state.node.name.as_str();
            let mut usage = state.usage.clone();
            let mut removable = Vec::new();
            let mut non_removable = 0;
            for &idx in &state.pods {
                if self.evicted.contains(&idx) {
                    non_removable += 1;
                    self.skip(run, idx, name, SkipReason::AlreadyEvicted);
                    continue;
                }
                let outcome = match evictor.filter(&snapshot.pods[idx]) {
                    FilterOutcome::Evictable => (drain.removable)(&snapshot.pods[idx]),
                    FilterOutcome::Fails(reason) => Some(reason),
                };
                match outcome {
                    None => removable.push(idx),
                    Some(reason) => {
                        non_removable += 1;
                        self.skip(run, idx, name, reason);
                    }
                }
            }
            removable.sort_by(|a, b| compare_pods(&snapshot.pods[*a], &snapshot.pods[*b]));
            let ranked_on = match drain.pod_usage {
                Some(of) if drain.rank_by_usage => {
                    super::metrics::rank_by_usage(&mut removable, of, state, &node_caps[src])
                }
                _ => None,
            };
            let usage_sum = run.nodes.iter().find(|n| n.name == name).map_or(0, |n| n.usage_sum);
            let mut source = SourceNode {
                node: name.to_string(),
                usage_sum,
                removable: removable.len(),
                non_removable,
                evicted: 0,
                stop: StopReason::CandidatesExhausted,
                stop_message: String::new(),
            };
            let initial_stop = if removable.is_empty() {
                Some(StopReason::NoRemovablePods)
            } else if run_ended {
                Some(StopReason::NotVisited)
            } else {
                (drain.stop)(&usage, &node_caps[src], budget)
            };
            if let Some(stop) = initial_stop {
                for &idx in &removable {
                    self.skip(run, idx, name, not_reached(&snapshot.pods[idx], drain.excluded, &stop));
                }
                source.stop_message = stop.message();
                source.stop = stop;
                run.source_nodes.push(source);
                continue;
            }
            let total = removable.len();
            let mut stop: Option<StopReason> = None;
            for (pos, &idx) in removable.iter().enumerate() {
                let pod = &snapshot.pods[idx];
                if let Some(s) = &stop {
                    self.skip(run, idx, name, not_reached(pod, drain.excluded, s));
                    continue;
                }
                if let Some(limit) = drain.node_limit {
                    if source.evicted >= limit as usize {
                        let s = StopReason::PluginNodeLimit { limit };
                        self.skip(run, idx, name, not_reached(pod, drain.excluded, &s));
                        stop = Some(s);
                        continue;
                    }
                }
                if drain.skip_zero_request {
                    let over_on = above_target(&usage, &node_caps[src]);
                    if !over_on.iter().any(|r| r == PODS) && over_on.iter().all(|r| pod.requests.get(r) == 0) {
                        self.skip(run, idx, name, SkipReason::FreesNothing { over: over_on });
                        continue;
                    }
                }
                if !tolerates_some(pod, &drain.destinations) {
                    self.skip(run, idx, name, SkipReason::UntoleratedTaints);
                    continue;
                }
                if drain.excluded.contains(&pod.namespace) {
                    self.skip(run, idx, name, SkipReason::ExcludedNamespace);
                    continue;
                }
                if let Some(reason) = evictor.pre_eviction(pod) {
                    self.skip(run, idx, name, reason);
                    continue;
                }
                // Upstream asks the usage client after PreEvictionFilter and
                // before the evictor's limits; a pod without a reading is skipped.
                let measured = match drain.pod_usage.map(|of| of(idx)) {
                    None => None,
                    Some(PodUsage::Amounts(a)) => Some(Some(a)),
                    Some(PodUsage::Unsupported) => Some(None),
                    Some(PodUsage::Missing(message)) => {
                        let rule = "no-pod-usage".to_string();
                        self.skip(run, idx, name, SkipReason::Rule { rule, message, upstream: false });
                        continue;
                    }
                };
                match self.counters.check(name, &pod.namespace) {
                    Some(LimitHit::Total) => {
                        self.skip(run, idx, name, SkipReason::MaxTotal);
                        stop = Some(StopReason::MaxTotal);
                        run_ended = true;
                        continue;
                    }
                    Some(LimitHit::Node) => {
                        self.skip(run, idx, name, SkipReason::MaxPerNode);
                        stop = Some(StopReason::MaxPerNode);
                        continue;
                    }
                    Some(LimitHit::Namespace) => {
                        self.skip(run, idx, name, SkipReason::MaxPerNamespace);
                        continue;
                    }
                    None => {}
                }
                let mut rule_text = (drain.rule)(pod, pos + 1, total, name);
                if let (Some(resource), Some(Some(m))) = (&ranked_on, &measured) {
                    rule_text = super::metrics::ranked_rule(resource, m, &rule_text);
                }
                // A PDB refusal (429) changes no usage, budget or counter;
                // the loop goes on with the next pod (upstream logs
                // "eviction failed").
                if self.refused(run, idx, name, pos + 1, &rule_text) {
                    continue;
                }
                self.counters.record(name, &pod.namespace);
                let counted = self.counters.counts(name, &pod.namespace);
                self.evicted.insert(idx);
                source.evicted += 1;
                // Prometheus: pod usage is unknown (upstream notSupportedError),
                // nothing is subtracted and the node is not re-checked.
                let unconstrained = matches!(measured, Some(None));
                let freed = match &measured {
                    None => frees(pod, drain.tracked),
                    Some(Some(amounts)) => amounts.clone(),
                    Some(None) => ResourceList::new(),
                };
                usage.sub(&freed);
                budget.sub(&freed);
                self.next_order += 1;
                run.evictions.push(Eviction {
                    order: self.next_order,
                    pod: pod_ref(snapshot, idx),
                    source_node: name.to_string(),
                    profile: run.profile.clone(),
                    plugin: drain.plugin.to_string(),
                    rank_on_node: pos + 1,
                    rule: rule_text,
                    priority: pod.priority,
                    qos: pod.qos,
                    prefer_no_eviction: prefers_no_eviction(pod),
                    frees: freed,
                    budget_after: budget.clone(),
                    node_usage_after: usage.clone(),
                    counted,
                    refused_by_pdb: None,
                });
                if unconstrained {
                    if drain.node_limit.is_none() {
                        stop = Some(StopReason::SinglePodEviction);
                    }
                    continue;
                }
                stop = (drain.stop)(&usage, &node_caps[src], budget);
            }
            source.stop = stop.unwrap_or(StopReason::CandidatesExhausted);
            source.stop_message = source.stop.message();
            run.source_nodes.push(source);
        }
    }
}

/// Why a pod the drain loop stopped before is not evicted: its namespace in
/// `evictableNamespaces.exclude` when it is (upstream checks that inside the
/// loop, so it never got there; but it is the reason that holds whatever
/// the limits), else not reached because of `stop`.
fn not_reached(pod: &PodInfo, excluded: &[String], stop: &StopReason) -> SkipReason {
    if excluded.contains(&pod.namespace) {
        SkipReason::ExcludedNamespace
    } else {
        SkipReason::NotReached { stop: stop.clone() }
    }
}
