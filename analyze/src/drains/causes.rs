//! Who evicted a pod, beyond drains: the events the components that evict
//! write (query `move_causes`, read at query time next to the eviction
//! evidence: `eviction_evidence` keeps the kubelet's and the node
//! controller's traces, these say which component asked) — the descheduler,
//! kdrift's own rebalance, Karpenter's disruption, cluster-autoscaler's
//! scale-down, the node controller — and an HPA's rescale.
//!
//! A pod replaced one of those evicted pods when its owner created it at
//! most [`REPLACE_WINDOW`] (2 minutes) after the eviction of a pod of the
//! same owner (a StatefulSet pod: of the same name). Evictions of one
//! cause (same component and plugin / run / reason) each at most
//! [`RUN_GAP`] after the previous one are one run.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Duration, Utc};
use kdrift_store::sql;
use kdrift_store::Reader;
use serde::Serialize;

/// A replacement created this long after an eviction of its owner's pod is that eviction's.
pub const REPLACE_WINDOW: Duration = Duration::minutes(2);
/// Evictions of one cause closer than this are one run (the drain timeline's grouping gap).
pub const RUN_GAP: Duration = crate::drains::GROUP_GAP;
/// The component that moved a pod.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cause {
    /// The descheduler (`by`: the plugin, e.g. `LowNodeUtilization`).
    Descheduler,
    /// kdrift's own rebalance (`by`: the run's name).
    Kdrift,
    /// Karpenter's disruption (`by`: its reason, e.g. `Underutilized`).
    Karpenter,
    /// cluster-autoscaler's scale-down of the pod's node.
    ClusterAutoscaler,
    /// The node controller (`NodeControllerEviction`, `TaintManagerEviction`).
    NodeController,
    /// A HorizontalPodAutoscaler's rescale (`by`: the new size).
    Hpa,
}

impl Cause {
    fn from_sql(s: &str) -> Option<Cause> {
        Some(match s {
            "descheduler" => Cause::Descheduler,
            "kdrift" => Cause::Kdrift,
            "karpenter" => Cause::Karpenter,
            "cluster-autoscaler" => Cause::ClusterAutoscaler,
            "node-controller" => Cause::NodeController,
            "hpa" => Cause::Hpa,
            _ => return None,
        })
    }
}

/// One event saying who moved (or scaled) a pod.
#[derive(Debug, Clone, PartialEq)]
pub struct MoveCause {
    /// The component.
    pub cause: Cause,
    /// Plugin, run, reason or new size (see [`Cause`]).
    pub by: Option<String>,
    /// The pod's (or HPA's) namespace.
    pub namespace: String,
    /// The pod's (or HPA's) name.
    pub name: String,
    /// The node the pod left, when known.
    pub node: Option<String>,
    /// The event's time (UTC).
    pub at: DateTime<Utc>,
    /// The evicted pod's owner `(kind, name)`, when its binding names it.
    pub owner: Option<(String, String)>,
    /// The event's message.
    pub message: String,
}

/// Loads the move causes between two instants, oldest first.
///
/// # Errors
/// [`crate::AnalyzeError::Store`] when the query fails.
pub fn move_causes(
    store: &Reader,
    since: DateTime<Utc>,
    until: DateTime<Utc>,
) -> Result<Vec<MoveCause>, crate::AnalyzeError> {
    let bounds = [since.timestamp_micros(), until.timestamp_micros()];
    let rows = store.query_map(&sql::MOVE_CAUSES, bounds, |r| {
        let owner_kind: Option<String> = r.get(6)?;
        let owner_name: Option<String> = r.get(7)?;
        Ok((
            r.get::<_, String>(0)?,
            MoveCause {
                cause: Cause::Hpa,
                by: r.get(1)?,
                namespace: r.get(2)?,
                name: r.get(3)?,
                node: r.get(4)?,
                at: r.get(5)?,
                owner: owner_kind.zip(owner_name),
                message: r.get::<_, Option<String>>(8)?.unwrap_or_default(),
            },
        ))
    })?;
    Ok(rows
        .into_iter()
        .filter_map(|(cause, mut m)| {
            m.cause = Cause::from_sql(&cause)?;
            Some(m)
        })
        .collect())
}

/// Whether the evicted pod `c` was one of `owner`'s (`(kind, name)`) — a
/// ReplicaSet's pods are named `RS-xxxxx`, a StatefulSet's keep their name.
pub fn same_owner(c: &MoveCause, pod_name: &str, owner: &(String, String)) -> bool {
    if owner.0 == "StatefulSet" {
        return c.name == pod_name;
    }
    if c.name == pod_name {
        return false;
    }
    match &c.owner {
        Some(o) => o == owner,
        None => c.name.rsplit_once('-').is_some_and(|(prefix, _)| prefix == owner.1),
    }
}

/// A pod that may have replaced an evicted one: `(namespace, name,
/// owner (kind, name), created)`.
pub type Candidate = (String, String, (String, String), DateTime<Utc>);

/// Replacements paired one to one with the evictions they replaced.
#[derive(Debug, Default)]
pub struct Replacements {
    /// `(namespace, name, created)` → index into the causes.
    of: HashMap<(String, String, DateTime<Utc>), usize>,
}

impl Replacements {
    /// Pairs `pods` (any order) with `causes`: in creation order, each pod
    /// takes the earliest eviction not yet taken of one of its owner's pods
    /// at most [`REPLACE_WINDOW`] before its creation (1 s of clock skew
    /// allowed) — the owner replaces its evicted pods in the order they
    /// went.
    pub fn pair(causes: &[MoveCause], mut pods: Vec<Candidate>) -> Replacements {
        pods.sort_by(|a, b| (a.3, &a.0, &a.1).cmp(&(b.3, &b.0, &b.1)));
        let mut taken: HashSet<usize> = HashSet::new();
        let mut of = HashMap::new();
        for (namespace, name, owner, created) in pods {
            let found = causes
                .iter()
                .enumerate()
                .filter(|(i, c)| !taken.contains(i) && c.cause != Cause::Hpa && c.namespace == namespace)
                .filter(|(_, c)| c.at <= created + Duration::seconds(1) && created - c.at <= REPLACE_WINDOW)
                .filter(|(_, c)| same_owner(c, &name, &owner))
                .min_by_key(|(i, c)| (c.at, *i))
                .map(|(i, _)| i);
            if let Some(i) = found {
                taken.insert(i);
                of.insert((namespace, name, created), i);
            }
        }
        Replacements { of }
    }

    /// The eviction the pod `namespace/name` created at `created` replaced.
    pub fn of<'a>(
        &self,
        causes: &'a [MoveCause],
        namespace: &str,
        name: &str,
        created: DateTime<Utc>,
    ) -> Option<&'a MoveCause> {
        let i = self.of.get(&(namespace.to_string(), name.to_string(), created))?;
        causes.get(*i)
    }
}

/// The evictions of one run of one cause, as `timeline drains` lists them
/// beside the drains: where the pods left from and where their
/// replacements landed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvictionRun {
    /// The component.
    pub cause: Cause,
    /// Plugin, run or reason, when known.
    pub by: Option<String>,
    /// The first eviction (UTC).
    pub started_at: DateTime<Utc>,
    /// The last eviction (UTC).
    pub last_at: DateTime<Utc>,
    /// Pods evicted.
    pub pods: usize,
    /// Per node they left, `(node, pods)`, most first (`?` when unknown:
    /// "an unknown node" in the summary).
    pub from: Vec<(String, usize)>,
    /// Per node their replacements landed on, `(node, pods)`, most first.
    pub landed: Vec<(String, usize)>,
    /// The run in words.
    pub summary: String,
}

/// A run's name in words: "descheduler's LowNodeUtilization run",
/// "kdrift's rebalance RUN", "Karpenter's disruption (Underutilized)",
/// "cluster-autoscaler's scale-down", "the node controller's evictions".
pub fn run_words(cause: Cause, by: Option<&str>) -> String {
    match cause {
        Cause::Descheduler => format!("descheduler's {} run", by.unwrap_or("eviction")),
        Cause::Kdrift => format!("kdrift's rebalance {}", by.unwrap_or("run")),
        Cause::Karpenter => format!("Karpenter's disruption ({})", by.unwrap_or("eviction")),
        Cause::ClusterAutoscaler => "cluster-autoscaler's scale-down".into(),
        Cause::NodeController => "the node controller's evictions".into(),
        Cause::Hpa => format!("HPA rescale to {}", by.unwrap_or("?")),
    }
}

fn tally(nodes: impl Iterator<Item = String>) -> Vec<(String, usize)> {
    let mut map: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    for n in nodes {
        *map.entry(n).or_default() += 1;
    }
    let mut out: Vec<(String, usize)> = map.into_iter().collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out
}

/// The eviction runs of `causes` (HPA rescales left out), oldest first,
/// with the node each replacement in `placements` landed on (a binding is
/// a replacement as [`Replacements::pair`] tells: its owner's pod evicted
/// at most [`REPLACE_WINDOW`] before its creation).
pub fn eviction_runs(causes: &[MoveCause], placements: &[crate::history::Placement]) -> Vec<EvictionRun> {
    let evictions: Vec<&MoveCause> = causes.iter().filter(|c| c.cause != Cause::Hpa).collect();
    // Each eviction's replacement node, by its index in `causes`.
    let candidates: Vec<(Candidate, &str)> = placements
        .iter()
        .filter_map(|p| {
            let owner = match (&p.owner_kind, &p.owner_name) {
                (Some(k), Some(n)) => (k.clone(), n.clone()),
                _ => ("ReplicaSet".to_string(), crate::history::owner_from_name(&p.name)?.to_string()),
            };
            let created = p.created_at.unwrap_or(p.bound_at);
            Some(((p.namespace.clone(), p.name.clone(), owner, created), p.node.as_str()))
        })
        .collect();
    let paired = Replacements::pair(causes, candidates.iter().map(|(c, _)| c.clone()).collect());
    let mut landed_on: HashMap<usize, String> = HashMap::new();
    for ((namespace, name, _, created), node) in &candidates {
        if let Some(i) = paired.of.get(&(namespace.clone(), name.clone(), *created)) {
            landed_on.entry(*i).or_insert_with(|| node.to_string());
        }
    }
    let mut sorted: Vec<(usize, &MoveCause)> =
        evictions.iter().map(|c| (causes.iter().position(|x| std::ptr::eq(x, *c)).unwrap_or(0), *c)).collect();
    sorted.sort_by(|a, b| (a.1.cause, &a.1.by, a.1.at).cmp(&(b.1.cause, &b.1.by, b.1.at)));
    let mut groups: Vec<Vec<(usize, &MoveCause)>> = Vec::new();
    for (i, c) in sorted {
        match groups.last_mut() {
            Some(g) if g[0].1.cause == c.cause && g[0].1.by == c.by && c.at <= g[g.len() - 1].1.at + RUN_GAP => {
                g.push((i, c))
            }
            _ => groups.push(vec![(i, c)]),
        }
    }
    let mut runs: Vec<EvictionRun> = groups
        .into_iter()
        .map(|g| {
            let first = g[0].1;
            let last_at = g.iter().map(|(_, c)| c.at).max().unwrap_or(first.at);
            let from = tally(g.iter().map(|(_, c)| c.node.clone().unwrap_or_else(|| "?".into())));
            let landed = tally(g.iter().filter_map(|(i, _)| landed_on.get(i).cloned()));
            // Nodes with their share of the count (`node-1 (5), node-2 (4)`);
            // one node alone takes the whole count, said once before it.
            let list = |v: &[(String, usize)]| {
                let named = |n: &str| if n == "?" { "an unknown node".to_string() } else { n.to_string() };
                match v {
                    [(n, _)] => named(n),
                    _ => v.iter().map(|(n, k)| format!("{} ({k})", named(n))).collect::<Vec<_>>().join(", "),
                }
            };
            let pods = g.len();
            let replaced_count: usize = landed.iter().map(|(_, k)| k).sum();
            let landed_words = crate::words::count(replaced_count, "replacement landed", "replacements landed");
            let summary = format!(
                "{} at {}: {} evicted from {}; {}",
                run_words(first.cause, first.by.as_deref()),
                kdrift_store::instant_text(first.at),
                if pods == 1 { "1 pod".to_string() } else { format!("{pods} pods") },
                list(&from),
                if landed.is_empty() {
                    "no replacement in the store".to_string()
                } else {
                    format!("{landed_words} on {}", list(&landed))
                },
            );
            EvictionRun {
                cause: first.cause,
                by: first.by.clone(),
                started_at: first.at,
                last_at,
                pods,
                from,
                landed,
                summary,
            }
        })
        .collect();
    runs.sort_by_key(|r| (r.started_at, r.cause));
    runs
}
