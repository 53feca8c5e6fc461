//! One pod against the whole policy: for every plugin run of the cycle, in
//! order, whether it would evict this pod and, if not, the first rule that
//! stops it (protection, filter, threshold, limit, nodeFit) with its
//! numbers — the question behind "why doesn't descheduler evict X" and "why
//! did it evict Y" (with `--at` and the store's history).
//!
//! [`explain_pod`] plans the whole cycle as [`super::plan`] does and reads
//! this pod's evictions and skips out of it, so the verdicts are the plan's
//! own: nothing is re-derived.

use serde::Serialize;

use super::evictor::{Evictor, FilterOutcome};
use super::plan::{Eviction, NodeClass, Plan, PluginRun, SkipReason, SkippedPod, StopReason, ThresholdsApplied};
use super::{plan_explaining, PlanOptions, Snapshot};
use crate::model::pod::PodInfo;
use crate::policy::{ExtensionPoint, Policy};

/// What one plugin run does with the pod.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind")]
pub enum Verdict {
    /// It evicts the pod (`order` over the whole plan).
    Evicts {
        /// 1-based position over the whole plan.
        order: usize,
        /// Why this plugin chose the pod, with its numbers.
        rule: String,
        /// Set when a PodDisruptionBudget allows no disruption: the API
        /// would refuse the eviction (429).
        refused_by_pdb: Option<String>,
    },
    /// It looked at the pod and kept it.
    Keeps {
        /// The reason, with its numbers.
        reason: String,
        /// True when `reason` is descheduler's own text.
        upstream: bool,
        /// For a shared limit reached, which one and the evictions that
        /// used it (`maxNoOfPodsToEvictPerNode 3 on node-1, used by
        /// RemoveDuplicates (default): web/a, web/b`); `None` otherwise.
        #[serde(skip_serializing_if = "Option::is_none")]
        limit: Option<String>,
    },
    /// The plugin looked at the pod and it does not break the rule.
    Unbroken {
        /// Why, with the pod's numbers against the plugin's args.
        why: String,
    },
    /// The plugin does not look at the pod: out of its scope, its node is
    /// not a source (utilization plugins), or the run stopped first.
    Ignores {
        /// Why, with the node's class and numbers where the plugin has them.
        why: String,
    },
    /// The run failed before looking at any pod (descheduler logs the
    /// error and evicts nothing in that plugin), so what it would do with
    /// the pod is unknown.
    Fails {
        /// The error, in descheduler's words ([`PluginRun::error`]).
        error: String,
    },
}

/// One plugin run's verdict on the pod.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PluginVerdict {
    /// The profile.
    pub profile: String,
    /// The plugin.
    pub plugin: String,
    /// Where it runs in the cycle.
    pub extension_point: ExtensionPoint,
    /// What it does with the pod.
    pub verdict: Verdict,
    /// How the run classified the pod's node, with its numbers (utilization
    /// plugins; with `metricsUtilization` the measured percents and the
    /// reading they came from): `hot overutilized: above target: cpu used
    /// 95.0 % > 70 (latest sample at …, 0s before the plan)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_class: Option<String>,
    /// A failed utilization run's thresholds and where its usage came from
    /// (the plan's header line), so the explanation still says what was
    /// asked; `None` for every other run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_run: Option<FailedRun>,
}

/// What a failed utilization run was asked to do.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FailedRun {
    /// The thresholds it would have applied ([`PluginRun::thresholds`]).
    pub thresholds: ThresholdsApplied,
    /// Where its usage came from ([`PluginRun::usage_source`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage_source: Option<super::metrics::UsageSource>,
}

/// The pod against the whole policy.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Explanation {
    /// `namespace/name`.
    pub pod: String,
    /// The pod's node (`None`: not bound, so no plugin looks at it).
    pub node: Option<String>,
    /// Why no plugin looks at the pod at all (its node left out of the
    /// cycle, fewer than 2 nodes, an invalid policy), if so.
    pub not_considered: Option<String>,
    /// Per profile, the DefaultEvictor's Filter verdict when it protects the
    /// pod (`(profile, every failed check)`): why no plugin of that profile
    /// can evict it, whatever its rules.
    pub protected: Vec<(String, String)>,
    /// Every plugin run, in cycle order.
    pub plugins: Vec<PluginVerdict>,
    /// The plan's warnings (out-of-tree plugins, unknown threshold names…).
    pub warnings: Vec<String>,
    /// The caller's notes on the inputs (e.g. the measured usage read);
    /// empty from [`explain_pod`].
    pub notes: Vec<String>,
}

/// Explains what the whole `policy` does with pod `index` of `snapshot`
/// (see the module docs). Pure; deterministic.
pub fn explain_pod(snapshot: &Snapshot, policy: &Policy, options: &PlanOptions, index: usize) -> Explanation {
    let pod = &snapshot.pods[index];
    let plan = plan_explaining(snapshot, policy, options, index);
    let node = pod.node_name.clone();
    let not_considered = not_considered(&plan, node.as_deref());
    let plugins = plan
        .runs
        .iter()
        .map(|run| {
            let mut verdict = verdict_of(run, index, pod);
            if let Some(s) = run.skipped.iter().find(|s| s.pod.index == index) {
                if let (Verdict::Keeps { limit, .. }, Some(used)) = (&mut verdict.verdict, limit_used(&plan, policy, s))
                {
                    *limit = Some(used);
                }
            }
            verdict
        })
        .collect();
    let mut protected = Vec::new();
    let mut ignored = Vec::new();
    for profile in &policy.profiles {
        let evictor = Evictor::new(snapshot, profile.default_evictor(), &mut ignored, None);
        if let FilterOutcome::Fails(reason) = evictor.filter(pod) {
            protected.push((profile.name.clone(), reason.message().0));
        }
    }
    Explanation { pod: pod.key(), node, not_considered, protected, plugins, warnings: plan.warnings, notes: Vec::new() }
}

/// For a pod kept because one of the cycle's shared limits was reached
/// (descheduler v0.36 `EvictPod`: `maxNoOfPodsToEvictPerNode`,
/// `…PerNamespace`, `…Total`, counted over every profile and plugin), which
/// limit and the evictions that used it, in cycle order:
/// `maxNoOfPodsToEvictPerNode 3 on node-1, used by RemoveDuplicates
/// (default): web/a, web/b; LowNodeUtilization (default): web/c` (new-user trial 43: the words alone
/// did not say which limit or who used it up). `None` for other reasons.
fn limit_used(plan: &Plan, policy: &Policy, skipped: &SkippedPod) -> Option<String> {
    let reason = match &skipped.reason {
        SkipReason::NotReached { stop } => match stop {
            StopReason::MaxPerNode => Some(LimitKind::Node),
            StopReason::MaxTotal => Some(LimitKind::Total),
            _ => None,
        },
        SkipReason::MaxPerNode => Some(LimitKind::Node),
        SkipReason::MaxPerNamespace => Some(LimitKind::Namespace),
        SkipReason::MaxTotal => Some(LimitKind::Total),
        _ => None,
    }?;
    let namespace = skipped.pod.key().split_once('/').map(|(ns, _)| ns.to_string()).unwrap_or_default();
    let (name, limit, scope) = match reason {
        LimitKind::Node => {
            ("maxNoOfPodsToEvictPerNode", policy.max_no_of_pods_to_evict_per_node, format!(" on {}", skipped.node))
        }
        LimitKind::Namespace => (
            "maxNoOfPodsToEvictPerNamespace",
            policy.max_no_of_pods_to_evict_per_namespace,
            format!(" in namespace {namespace}"),
        ),
        LimitKind::Total => ("maxNoOfPodsToEvictTotal", policy.max_no_of_pods_to_evict_total, String::new()),
    };
    let limit = limit?;
    let counted = |e: &Eviction| {
        e.refused_by_pdb.is_none()
            && match reason {
                LimitKind::Node => e.source_node == skipped.node,
                LimitKind::Namespace => e.pod.key().split_once('/').is_some_and(|(ns, _)| ns == namespace),
                LimitKind::Total => true,
            }
    };
    let mut by_plugin: Vec<(String, Vec<String>)> = Vec::new();
    for e in plan.runs.iter().flat_map(|r| &r.evictions).filter(|e| counted(e)) {
        let who = format!("{} ({})", e.plugin, e.profile);
        match by_plugin.iter_mut().find(|(p, _)| *p == who) {
            Some((_, pods)) => pods.push(e.pod.key()),
            None => by_plugin.push((who, vec![e.pod.key()])),
        }
    }
    if by_plugin.is_empty() {
        return Some(format!("{name} {limit}{scope}"));
    }
    let used: Vec<String> = by_plugin.iter().map(|(who, pods)| format!("{who}: {}", pods.join(", "))).collect();
    Some(format!("{name} {limit}{scope}, used by {}", used.join("; ")))
}

/// Which shared limit [`limit_used`] names.
#[derive(Clone, Copy)]
enum LimitKind {
    Node,
    Namespace,
    Total,
}

fn not_considered(plan: &Plan, node: Option<&str>) -> Option<String> {
    if let Some(a) = &plan.aborted {
        return Some(plan.too_few_nodes().unwrap_or_else(|| a.clone()));
    }
    let Some(node) = node else {
        return Some("the pod is not bound to a node: descheduler only looks at pods on nodes".to_string());
    };
    plan.nodes_excluded
        .iter()
        .find(|e| e.name == node)
        .map(|e| format!("its node {node} is left out of the cycle: {}", e.reason))
}

/// Why a rule plugin's run never looked at `pod` (a pod it looked at is
/// evicted, skipped with a reason, or counted as not breaking the rule
/// with its numbers: [`PluginRun::explained_not_matching`]).
fn not_looked_at(plugin: &str, pod: &PodInfo) -> String {
    use crate::policy::*;
    let phase = pod.phase.map_or("unknown", |p| p.as_str());
    if plugin == REMOVE_FAILED_PODS && pod.phase != Some(crate::model::pod::PodPhase::Failed) {
        return format!("it is not in phase Failed (phase {phase})");
    }
    let every_phase = [POD_LIFE_TIME, REMOVE_FAILED_PODS, REMOVE_PODS_HAVING_TOO_MANY_RESTARTS].contains(&plugin);
    if !every_phase && !pod.counts_toward_usage() {
        return format!("the plugin lists only pods that are not Succeeded/Failed (phase {phase})");
    }
    "the plugin does not look at it: out of its namespaces/labelSelector".to_string()
}

/// Why a run never looked at a pod on `node`.
fn ignored_because(run: &PluginRun, pod: &PodInfo) -> String {
    let node = pod.node_name.as_deref();
    if run.nodes.is_empty() {
        return not_looked_at(&run.plugin, pod);
    }
    if let Some(exit) = &run.early_exit {
        return format!("the run stops before looking at pods: {}", exit.message);
    }
    let source = if run.plugin == crate::policy::HIGH_NODE_UTILIZATION {
        NodeClass::Underutilized
    } else {
        NodeClass::Overutilized
    };
    match node.and_then(|n| run.nodes.iter().find(|r| r.name == n)) {
        Some(r) if r.class != source => {
            let wanted = if source == NodeClass::Underutilized { "underutilized" } else { "overutilized" };
            format!("its node {} is not {wanted}, so not a source: {}", r.name, r.why)
        }
        Some(r) => format!("its node {} is a source, but the run ended before this pod", r.name),
        None => "its node is not in this run".to_string(),
    }
}

fn verdict_of(run: &PluginRun, index: usize, pod: &PodInfo) -> PluginVerdict {
    if let Some(error) = &run.error {
        return PluginVerdict {
            profile: run.profile.clone(),
            plugin: run.plugin.clone(),
            extension_point: run.extension_point,
            verdict: Verdict::Fails { error: error.clone() },
            node_class: None,
            failed_run: Some(FailedRun { thresholds: run.thresholds.clone(), usage_source: run.usage_source.clone() }),
        };
    }
    let verdict = if let Some(e) = run.evictions.iter().find(|e| e.pod.index == index) {
        Verdict::Evicts { order: e.order, rule: e.rule.clone(), refused_by_pdb: e.refused_by_pdb.clone() }
    } else if let Some(s) = run.skipped.iter().find(|s| s.pod.index == index) {
        Verdict::Keeps { reason: s.message.clone(), upstream: s.upstream_message, limit: None }
    } else if let Some(why) = &run.explained_not_matching {
        Verdict::Unbroken { why: why.clone() }
    } else {
        Verdict::Ignores { why: ignored_because(run, pod) }
    };
    // The node's class, unless the verdict's reason already gives it.
    let node_class = pod
        .node_name
        .as_deref()
        .and_then(|n| run.nodes.iter().find(|r| r.name == n))
        .filter(|r| !matches!(&verdict, Verdict::Ignores { why } if why.contains(&r.why)))
        .map(|r| {
            let class = match r.class {
                NodeClass::Underutilized => "underutilized",
                NodeClass::AppropriatelyUtilized => "appropriately utilized",
                NodeClass::Overutilized => "overutilized",
            };
            format!("{} {class}: {}", r.name, r.why)
        });
    PluginVerdict {
        profile: run.profile.clone(),
        plugin: run.plugin.clone(),
        extension_point: run.extension_point,
        verdict,
        node_class,
        failed_run: None,
    }
}
