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

use super::budget::{above_target, caps, exhausted, frees};
use super::classify::{early_exit, percent, report, thresholds, tracked_resources, tracked_usage, usage_of, NodeState};
use super::cycle::{pod_ref, Cycle};
use super::evictor::{Evictor, FilterOutcome};
use super::limits::LimitHit;
use super::order::{compare_pods, compare_sources, prefers_no_eviction, rule};
use super::plan::{Budget, Eviction, NodeClass, PluginRun, SkipReason, SourceNode, StopReason};
use crate::model::node::Taint;
use crate::model::pod::{tolerations_tolerate, PodInfo};
use crate::model::resources::{ResourceList, PODS};
use crate::policy::{ExtensionPoint, LowNodeUtilizationArgs, Profile, LOW_NODE_UTILIZATION};

/// `utils.PodToleratesTaints` over the underutilized nodes' taints.
fn tolerates_some(pod: &PodInfo, destinations: &[&[Taint]]) -> bool {
    destinations.iter().any(|taints| {
        pod.tolerations.len() >= taints.len() && taints.iter().all(|t| tolerations_tolerate(&pod.tolerations, t))
    })
}

fn stop_condition(usage: &ResourceList, caps: &ResourceList, budget: &ResourceList) -> Option<StopReason> {
    if above_target(usage, caps).is_empty() {
        return Some(StopReason::NoLongerAboveTarget);
    }
    let gone = exhausted(budget);
    (!gone.is_empty()).then_some(StopReason::BudgetExhausted { resources: gone })
}

impl Cycle<'_> {
    /// Runs LowNodeUtilization for `profile` with `args`.
    pub(crate) fn run(&mut self, profile: &Profile, args: &LowNodeUtilizationArgs) -> PluginRun {
        let snapshot = self.snapshot;
        let tracked = tracked_resources(args);
        let states: Vec<NodeState<'_>> = self
            .nodes
            .iter()
            .map(|node| {
                let pods = self.pods_by_node.get(node.name.as_str()).cloned().unwrap_or_default();
                let usage = match self.usage_given {
                    Some(given) => tracked_usage(given.get(&node.name), &tracked),
                    None => usage_of(pods.iter().map(|i| &snapshot.pods[*i]), &tracked),
                };
                let percent =
                    tracked.iter().map(|r| (r.clone(), percent(usage.get(r), node.allocatable.get_opt(r)))).collect();
                NodeState { node, pods, usage, percent }
            })
            .collect();
        let applied = thresholds(args, &states);
        let reports: Vec<_> = states.iter().map(|s| report(s, &applied, &tracked)).collect();
        let of_class = |c: NodeClass| -> Vec<usize> { (0..states.len()).filter(|i| reports[*i].class == c).collect() };
        let under = of_class(NodeClass::Underutilized);
        let mut over = of_class(NodeClass::Overutilized);
        let mut run = PluginRun {
            plugin: LOW_NODE_UTILIZATION.to_string(),
            extension_point: ExtensionPoint::Balance,
            notes: Vec::new(),
            profile: profile.name.clone(),
            early_exit: early_exit(under.len(), over.len(), states.len(), args.number_of_nodes),
            thresholds: applied.clone(),
            tracked_resources: tracked.clone(),
            nodes: reports,
            budget: None,
            source_nodes: Vec::new(),
            evictions: Vec::new(),
            skipped: Vec::new(),
        };
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
        let destinations: Vec<&[Taint]> = under.iter().map(|&i| states[i].node.taints.as_slice()).collect();
        over.sort_by(|a, b| {
            compare_sources(
                (states[*a].node.name.as_str(), run.nodes[*a].usage_sum),
                (states[*b].node.name.as_str(), run.nodes[*b].usage_sum),
            )
        });
        let evictor = Evictor::new(snapshot, profile.default_evictor(), &mut self.warnings);
        let node_limit = args.node_eviction_limit();
        let mut run_ended = false;
        for &src in &over {
            let state = &states[src];
            let name = state.node.name.as_str();
            let mut usage = state.usage.clone();
            let mut removable = Vec::new();
            let mut non_removable = 0;
            for &idx in &state.pods {
                if self.evicted.contains(&idx) {
                    non_removable += 1;
                    self.skip(&mut run, idx, name, SkipReason::AlreadyEvicted);
                    continue;
                }
                match evictor.filter(&snapshot.pods[idx]) {
                    FilterOutcome::Evictable => removable.push(idx),
                    FilterOutcome::Fails(reason) => {
                        non_removable += 1;
                        self.skip(&mut run, idx, name, reason);
                    }
                }
            }
            removable.sort_by(|a, b| compare_pods(&snapshot.pods[*a], &snapshot.pods[*b]));
            let mut source = SourceNode {
                node: name.to_string(),
                usage_sum: run.nodes[src].usage_sum,
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
                stop_condition(&usage, &node_caps[src], &budget)
            };
            if let Some(stop) = initial_stop {
                for &idx in &removable {
                    self.skip(&mut run, idx, name, SkipReason::NotReached { stop: stop.clone() });
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
                    self.skip(&mut run, idx, name, SkipReason::NotReached { stop: s.clone() });
                    continue;
                }
                if let Some(limit) = node_limit {
                    if source.evicted >= limit as usize {
                        let s = StopReason::PluginNodeLimit { limit };
                        self.skip(&mut run, idx, name, SkipReason::NotReached { stop: s.clone() });
                        stop = Some(s);
                        continue;
                    }
                }
                if self.options.skip_zero_request {
                    let over_on = above_target(&usage, &node_caps[src]);
                    if !over_on.iter().any(|r| r == PODS) && over_on.iter().all(|r| pod.requests.get(r) == 0) {
                        self.skip(&mut run, idx, name, SkipReason::FreesNothing { over: over_on });
                        continue;
                    }
                }
                if !tolerates_some(pod, &destinations) {
                    self.skip(&mut run, idx, name, SkipReason::UntoleratedTaints);
                    continue;
                }
                if args.excluded_namespaces().contains(&pod.namespace) {
                    self.skip(&mut run, idx, name, SkipReason::ExcludedNamespace);
                    continue;
                }
                if let Some(reason) = evictor.pre_eviction(pod) {
                    self.skip(&mut run, idx, name, reason);
                    continue;
                }
                match self.counters.check(name, &pod.namespace) {
                    Some(LimitHit::Total) => {
                        self.skip(&mut run, idx, name, SkipReason::MaxTotal);
                        stop = Some(StopReason::MaxTotal);
                        run_ended = true;
                        continue;
                    }
                    Some(LimitHit::Node) => {
                        self.skip(&mut run, idx, name, SkipReason::MaxPerNode);
                        stop = Some(StopReason::MaxPerNode);
                        continue;
                    }
                    Some(LimitHit::Namespace) => {
                        self.skip(&mut run, idx, name, SkipReason::MaxPerNamespace);
                        continue;
                    }
                    None => {}
                }
                self.counters.record(name, &pod.namespace);
                let counted = self.counters.counts(name, &pod.namespace);
                self.evicted.insert(idx);
                source.evicted += 1;
                let freed = frees(pod, &tracked);
                usage.sub(&freed);
                budget.sub(&freed);
                self.next_order += 1;
                run.evictions.push(Eviction {
                    order: self.next_order,
                    pod: pod_ref(snapshot, idx),
                    source_node: name.to_string(),
                    profile: profile.name.clone(),
                    plugin: LOW_NODE_UTILIZATION.to_string(),
                    rank_on_node: pos + 1,
                    rule: rule(pod, pos + 1, total, name),
                    priority: pod.priority,
                    qos: pod.qos,
                    prefer_no_eviction: prefers_no_eviction(pod),
                    frees: freed,
                    budget_after: budget.clone(),
                    node_usage_after: usage.clone(),
                    counted,
                });
                stop = stop_condition(&usage, &node_caps[src], &budget);
            }
            source.stop = stop.unwrap_or(StopReason::CandidatesExhausted);
            source.stop_message = source.stop.message();
            run.source_nodes.push(source);
        }
        run.budget = Some(Budget { initial, remaining: budget });
        run
    }
}
