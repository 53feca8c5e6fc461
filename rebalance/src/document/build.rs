//! Building a [`PlanDocument`] from a plan: the evictions and skipped
//! candidates with their pods' identities, the predicted landings, the
//! snapshot's identity (its nodes).

use std::collections::BTreeMap;

use chrono::Utc;
use serde_json::Value;

use super::{
    DocumentError, NodeIdentity, OwnerIdentity, PlanDocument, PlanSource, PlannedEviction, PodIdentity, ProfileClass,
    SkippedCandidate, SnapshotIdentity, Verbatim, PLAN_FORMAT, PLAN_FORMAT_VERSION,
};
use crate::fast_hash::FastMap;
use crate::model::percent::hundredths;
use crate::planner::{NodeReport, Plan, PlanOptions, Snapshot};
use crate::policy::Policy;
use crate::simulate::{LandingOutcome, Simulation};

/// Everything a plan document is built from.
#[derive(Debug, Clone, Copy)]
pub struct PlanInputs<'a> {
    /// The snapshot planned on.
    pub snapshot: &'a Snapshot,
    /// The policy.
    pub policy: &'a Policy,
    /// The policy file as given.
    pub policy_source: &'a str,
    /// The plan options.
    pub options: PlanOptions,
    /// Where the snapshot came from.
    pub source: &'a PlanSource,
}

impl PlanDocument {
    /// Builds the document for `plan` (made from `inputs`), with the
    /// predicted landings of `simulation` when given, the nights as JSON
    /// when given, and the snapshot's `notes`; the plan and the simulation
    /// are copied into it ([`PlanDocument::build_owned`] takes them).
    ///
    /// # Errors
    /// [`DocumentError::Policy`] when the policy cannot be written as YAML.
    pub fn build(
        inputs: PlanInputs<'_>,
        plan: &Plan,
        simulation: Option<&Simulation>,
        rounds: Option<Value>,
        notes: Vec<String>,
    ) -> Result<PlanDocument, DocumentError> {
        PlanDocument::build_owned(inputs, plan.clone(), simulation.cloned(), rounds, notes)
    }

    /// [`PlanDocument::build`] keeping `plan` and `simulation` themselves as
    /// its verbatim sections ([`super::Verbatim::Made`]: no copy).
    ///
    /// # Errors
    /// [`DocumentError::Policy`] when the policy cannot be written as YAML.
    pub fn build_owned(
        inputs: PlanInputs<'_>,
        made: Plan,
        made_simulation: Option<Simulation>,
        rounds: Option<Value>,
        notes: Vec<String>,
    ) -> Result<PlanDocument, DocumentError> {
        let (plan, simulation) = (&made, made_simulation.as_ref());
        let snapshot = inputs.snapshot;
        let policy = inputs.policy.to_yaml().map_err(DocumentError::Policy)?;
        let pod_identity = |index: usize| -> PodIdentity {
            let p = &snapshot.pods[index];
            PodIdentity {
                namespace: p.namespace.clone(),
                name: p.name.clone(),
                uid: p.uid.clone(),
                resource_version: p.resource_version.clone(),
                node: p.node_name.clone(),
            }
        };
        let mut evictions = Vec::new();
        let mut skipped = Vec::new();
        // Each eviction's landing by its order (a search per eviction was
        // evictions × landings: 81 M steps at 9,007 evictions).
        let landings: FastMap<usize, &LandingOutcome> =
            simulation.map(|s| s.landings.iter().map(|l| (l.order, &l.outcome)).collect()).unwrap_or_default();
        for run in &plan.runs {
            let why: BTreeMap<&str, &str> = run.nodes.iter().map(|n| (n.name.as_str(), n.why.as_str())).collect();
            for e in &run.evictions {
                let pod = &snapshot.pods[e.pod.index];
                let (predicted_node, predicted_outcome) = match landings.get(&e.order).copied() {
                    None if e.refused_by_pdb.is_some() => (None, e.refusal()),
                    None => (None, None),
                    Some(LandingOutcome::Scheduled { node, .. }) => (Some(node.clone()), None),
                    Some(LandingOutcome::Unschedulable { message }) => {
                        (None, Some(format!("stays Pending: {message}")))
                    }
                    Some(LandingOutcome::NotRecreated) => (None, Some("not recreated (no controller)".to_string())),
                };
                evictions.push(PlannedEviction {
                    order: e.order,
                    pod: pod_identity(e.pod.index),
                    node: e.source_node.clone(),
                    profile: e.profile.clone(),
                    plugin: e.plugin.clone(),
                    rule: e.rule.clone(),
                    reason: if run.nodes.is_empty() {
                        format!("{}: {}", e.plugin, e.rule)
                    } else if e.plugin == crate::policy::HIGH_NODE_UTILIZATION {
                        format!(
                            "{} is underutilized ({}): HighNodeUtilization drains it",
                            e.source_node,
                            why.get(e.source_node.as_str()).copied().unwrap_or("below its thresholds")
                        )
                    } else {
                        format!(
                            "{} is overutilized ({})",
                            e.source_node,
                            why.get(e.source_node.as_str()).copied().unwrap_or("above its target")
                        )
                    },
                    owner: pod.controller().map(|o| OwnerIdentity {
                        kind: o.kind.clone(),
                        name: o.name.clone(),
                        uid: o.uid.clone(),
                    }),
                    prefer_no_eviction: e.prefer_no_eviction,
                    predicted_node,
                    predicted_outcome,
                });
            }
            for s in &run.skipped {
                let reason = serde_json::to_value(&s.reason)
                    .ok()
                    .and_then(|v| v.get("kind").and_then(Value::as_str).map(str::to_string))
                    .unwrap_or_default();
                skipped.push(SkippedCandidate {
                    pod: pod_identity(s.pod.index),
                    profile: run.profile.clone(),
                    plugin: run.plugin.clone(),
                    reason,
                    message: s.message.clone(),
                });
            }
        }
        let identity = snapshot_identity(snapshot, plan);
        let aborted = plan.aborted.clone();
        Ok(PlanDocument {
            format: PLAN_FORMAT.to_string(),
            format_version: PLAN_FORMAT_VERSION,
            created_at: Utc::now(),
            kdrift_version: env!("CARGO_PKG_VERSION").to_string(),
            source: inputs.source.clone(),
            at: snapshot.now,
            policy_source: inputs.policy_source.to_string(),
            policy,
            options: inputs.options.into(),
            snapshot: identity,
            evictions,
            skipped,
            aborted,
            plan: Verbatim::Made(made),
            simulation: made_simulation.map(Verbatim::Made),
            rounds,
            notes,
            lower_bound_nodes: Vec::new(),
        })
    }
}

/// The snapshot by identity: every node with its classes per profile. The
/// pods are not listed (150,000 of them were most of a 68 MB document,
/// kdrift issue 39): each eviction carries its pod's identity, all that
/// `apply`'s drift check compares.
fn snapshot_identity(snapshot: &Snapshot, plan: &Plan) -> SnapshotIdentity {
    let mut names: Vec<&str> = snapshot.nodes.iter().map(|n| n.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    let considered: std::collections::HashSet<&str> = plan.nodes_considered.iter().map(String::as_str).collect();
    // Each run's node reports by name (a search per node and run was
    // nodes² string comparisons: 25 M at 5,000 nodes).
    let reports: Vec<FastMap<&str, &NodeReport>> =
        plan.runs.iter().map(|run| run.nodes.iter().map(|n| (n.name.as_str(), n)).collect()).collect();
    let nodes = names
        .into_iter()
        .map(|name| NodeIdentity {
            name: name.to_string(),
            considered: considered.contains(name),
            classes: plan
                .runs
                .iter()
                .zip(&reports)
                .filter_map(|(run, by_name)| {
                    by_name.get(name).map(|n| ProfileClass {
                        profile: run.profile.clone(),
                        class: n.class,
                        percent: n.resources.iter().map(|r| (r.resource.clone(), hundredths(r.percent))).collect(),
                    })
                })
                .collect(),
        })
        .collect();
    SnapshotIdentity { at: snapshot.now, nodes }
}
