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
use super::plan::{NodeClass, Plan, PluginRun};
use super::{plan, PlanOptions, Snapshot};
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
    },
    /// The plugin does not look at the pod: it does not break the rule, its
    /// node is not a source (utilization plugins), or the run stopped first.
    Ignores {
        /// Why, with the node's class and numbers where the plugin has them.
        why: String,
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
}

/// Explains what the whole `policy` does with pod `index` of `snapshot`
/// (see the module docs). Pure; deterministic.
pub fn explain_pod(snapshot: &Snapshot, policy: &Policy, options: &PlanOptions, index: usize) -> Explanation {
    let pod = &snapshot.pods[index];
    let plan = plan(snapshot, policy, options);
    let node = pod.node_name.clone();
    let not_considered = not_considered(&plan, node.as_deref());
    let plugins = plan.runs.iter().map(|run| verdict_of(run, index, node.as_deref())).collect();
    let mut protected = Vec::new();
    let mut ignored = Vec::new();
    for profile in &policy.profiles {
        let evictor = Evictor::new(snapshot, profile.default_evictor(), &mut ignored, None);
        if let FilterOutcome::Fails(reason) = evictor.filter(pod) {
            protected.push((profile.name.clone(), reason.message().0));
        }
    }
    Explanation { pod: pod.key(), node, not_considered, protected, plugins, warnings: plan.warnings }
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

/// What not breaking `plugin`'s rule means (a rule plugin counts such pods
/// in [`PluginRun::not_matching`] without a reason each).
fn rule_not_broken(plugin: &str) -> &'static str {
    use crate::policy::*;
    match plugin {
        REMOVE_PODS_VIOLATING_NODE_AFFINITY => {
            "its node still satisfies its node affinity (or it has none of the configured type)"
        }
        REMOVE_PODS_VIOLATING_NODE_TAINTS => "it tolerates every taint of its node this plugin considers",
        REMOVE_PODS_VIOLATING_INTER_POD_ANTI_AFFINITY => {
            "no pod its required anti-affinity selects runs in its topology domain (or it has none)"
        }
        POD_LIFE_TIME => {
            "it is younger than maxPodLifeTimeSeconds or matches none of the states, conditions or exit codes"
        }
        REMOVE_FAILED_PODS => "it is not in phase Failed",
        REMOVE_PODS_HAVING_TOO_MANY_RESTARTS => {
            "its restarts are below podRestartThreshold (or its state is not listed)"
        }
        REMOVE_DUPLICATES => "no other pod with the same owners and images runs on its node (or it is the one kept)",
        REMOVE_PODS_VIOLATING_TOPOLOGY_SPREAD_CONSTRAINT => {
            "no unbalanced spread constraint selects it, or it is not among the pods moved"
        }
        _ => "the pod does not break its rule",
    }
}

/// Why a run never looked at a pod on `node`.
fn ignored_because(run: &PluginRun, node: Option<&str>) -> String {
    if run.nodes.is_empty() {
        return rule_not_broken(&run.plugin).to_string();
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

fn verdict_of(run: &PluginRun, index: usize, node: Option<&str>) -> PluginVerdict {
    let verdict = if let Some(e) = run.evictions.iter().find(|e| e.pod.index == index) {
        Verdict::Evicts { order: e.order, rule: e.rule.clone(), refused_by_pdb: e.refused_by_pdb.clone() }
    } else if let Some(s) = run.skipped.iter().find(|s| s.pod.index == index) {
        Verdict::Keeps { reason: s.message.clone(), upstream: s.upstream_message }
    } else {
        Verdict::Ignores { why: ignored_because(run, node) }
    };
    PluginVerdict {
        profile: run.profile.clone(),
        plugin: run.plugin.clone(),
        extension_point: run.extension_point,
        verdict,
    }
}
