//! Tables for `why-pending`: the list of pending pods and one pod's chain.

use kdrift_analyze::PreemptionVerdict;
use std::io::Write;

use chrono::{DateTime, Utc};
use kdrift_analyze::{Arrival, Cause, StateAtFailure, WhyFull};
use kdrift_analyze::{PendingPod, PendingReport};
use kdrift_rebalance::format_amount;
use kdrift_rebalance::percent_text;
use tabled::{Table, Tabled};

use kdrift_analyze::count;

use super::{duration, pending_duration};

/// CPU always in millicores in tables (`1942m/2000m` reads better than `1942m/2`).
pub fn amount(resource: &str, v: i64) -> String {
    if resource == "cpu" {
        format!("{v}m")
    } else {
        format_amount(resource, v)
    }
}

fn t(ts: DateTime<Utc>) -> String {
    super::time(ts)
}

#[derive(Tabled)]
struct ListRow {
    #[tabled(rename = "POD")]
    pod: String,
    #[tabled(rename = "PENDING")]
    pending: String,
    #[tabled(rename = "FIRST FAILURE")]
    first: String,
    #[tabled(rename = "ATTEMPTS")]
    attempts: u64,
    #[tabled(rename = "SCHEDULED")]
    scheduled: String,
    #[tabled(rename = "REASONS (LATEST)")]
    reasons: String,
}

/// `why-pending --all` as a table; `-o wide` adds the last failure, the uid and the latest message.
pub fn list<W: Write>(out: &mut W, pods: &[PendingPod]) -> anyhow::Result<()> {
    if pods.is_empty() {
        return Ok(());
    }
    let rows = pods.iter().map(|p| ListRow {
        pod: format!("{}/{}", p.namespace, p.name),
        pending: pending_duration(p),
        first: t(p.first_failure),
        attempts: p.occurrences,
        scheduled: match (&p.scheduled_node, p.scheduled_at, p.deleted_at) {
            (Some(n), Some(at), _) => match &p.rejected_reason {
                Some(reason) => {
                    format!("{n} at {}, rejected by its kubelet ({reason})", super::time_near(at, p.first_failure))
                }
                None => format!("{n} at {}", super::time_near(at, p.first_failure)),
            },
            (_, _, Some(d)) => format!("never (deleted {})", super::time_near(d, p.first_failure)),
            _ => "not seen".into(),
        },
        reasons: p.reasons_shown(),
    });
    let mut b = Table::builder(rows);
    if crate::format::wide() {
        b.push_column(std::iter::once("LAST FAILURE".to_string()).chain(pods.iter().map(|p| t(p.last_failure))));
        b.push_column(std::iter::once("UID".to_string()).chain(pods.iter().map(|p| p.uid.clone())));
        b.push_column(
            std::iter::once("MESSAGE (LATEST)".to_string()).chain(pods.iter().map(|p| p.latest_message.clone())),
        );
    }
    writeln!(out, "{}", super::plain(&mut b.build()))?;
    let n = pods.len();
    if super::headers() {
        writeln!(out, "{n} pod{} had FailedScheduling", if n == 1 { "" } else { "s" })?;
    }
    Ok(())
}

#[derive(Tabled)]
struct ReasonRow {
    #[tabled(rename = "REASON")]
    reason: String,
    #[tabled(rename = "NODES")]
    nodes: String,
    #[tabled(rename = "ATTEMPTS")]
    attempts: u64,
    #[tabled(rename = "PREEMPTION CAN HELP")]
    preemption: &'static str,
}

#[derive(Tabled)]
struct NodeRow {
    #[tabled(rename = "NODE")]
    node: String,
    #[tabled(rename = "CPU REQUESTED")]
    cpu: String,
    #[tabled(rename = "CPU FREE")]
    cpu_free: String,
    #[tabled(rename = "MEMORY REQUESTED")]
    memory: String,
    #[tabled(rename = "PODS")]
    pods: String,
    #[tabled(rename = "OTHER")]
    other: String,
    #[tabled(rename = "FAILS FOR THIS POD")]
    fails: String,
}

/// One pod's chain as text.
pub fn report<W: Write>(out: &mut W, r: &PendingReport) -> anyhow::Result<()> {
    let h = &r.history;
    writeln!(
        out,
        "Pod {}{}",
        super::visible(&format!("{}/{}", r.namespace, r.name)),
        if r.uid.is_empty() { String::new() } else { format!("  (uid {})", super::visible(&r.uid)) }
    )?;
    // Placed at once, then refused by the kubelet: no wait, no scheduler reasons.
    let placed_at_once = h.failure_events == 0;
    if placed_at_once {
        writeln!(out, "  no FailedScheduling event: the scheduler placed it at once")?;
    } else {
        writeln!(
            out,
            "  failed to schedule {} in {}, from {} to {}",
            count(h.occurrences as usize, "time", "times"),
            count(h.failure_events as usize, "event", "events"),
            t(h.first_failure),
            t(h.last_failure)
        )?;
    }
    let outcome = match (&h.scheduled, h.deleted_at) {
        (Some(s), _) => match &h.rejected {
            Some(r) if placed_at_once => format!(
                "bound to {} by the scheduler at {}, then rejected by the kubelet at admission at {}: {} ({}); it \
                 never ran",
                s.node,
                t(s.at),
                t(r.at),
                r.reason,
                r.message
            ),
            Some(r) => format!(
                "bound to {} by the scheduler at {} after waiting {}, then rejected by the kubelet at admission \
                 at {}: {} ({}); it never ran",
                s.node,
                t(s.at),
                duration(h.pending_seconds),
                t(r.at),
                r.reason,
                r.message
            ),
            None => format!("scheduled on {} at {} after waiting {}", s.node, t(s.at), duration(h.pending_seconds)),
        },
        (None, Some(d)) => format!(
            "never scheduled: deleted at {}{} after {} pending",
            t(d),
            h.deleted_by.as_ref().map_or(String::new(), |by| format!(" ({by})")),
            duration(h.pending_seconds)
        ),
        (None, None) => format!("not seen scheduled: pending for at least {}", duration(h.pending_seconds)),
    };
    writeln!(out, "  outcome: {outcome}")?;
    writeln!(out)?;
    if placed_at_once {
        refusal(out, r)?;
    } else {
        reasons(out, r)?;
    }
    if let Some(s) = &r.state {
        writeln!(out)?;
        state(out, s, if placed_at_once { "the kubelet's refusal" } else { "the last failure" })?;
    }
    if let Some(w) = &r.why_full {
        why_full(out, w)?;
    }
    if !r.next_steps.is_empty() {
        writeln!(out)?;
        writeln!(out, "Next steps")?;
        for (i, s) in r.next_steps.iter().enumerate() {
            writeln!(out, "  {}. [{}] {}", i + 1, s.addresses, s.action)?;
        }
    }
    if !r.notes.is_empty() {
        writeln!(out)?;
        writeln!(out, "Notes")?;
        for n in &r.notes {
            writeln!(out, "  - {n}")?;
        }
    }
    Ok(())
}

/// The latest message and its reasons, with node counts and the preemption verdict.
fn reasons<W: Write>(out: &mut W, r: &PendingReport) -> anyhow::Result<()> {
    writeln!(out, "Why (latest message): {}", super::visible(&r.latest_message))?;
    let rows = r.reasons.iter().map(|x| ReasonRow {
        reason: x.reason.clone(),
        nodes: x.nodes.map_or("-".into(), |n| match r.total_nodes {
            Some(total) => format!("{n}/{total}"),
            None => n.to_string(),
        }),
        attempts: x.occurrences,
        preemption: match r.preemption_verdict(x) {
            PreemptionVerdict::Yes => "yes",
            PreemptionVerdict::No => "no",
            PreemptionVerdict::Maybe => "maybe",
        },
    });
    writeln!(out, "{}", super::plain(&mut Table::new(rows)))?;
    if let Some(p) = &r.preemption {
        writeln!(out, "  preemption: {p}")?;
    }
    Ok(())
}

/// For a pod placed at once: the kubelet's refusal is the only "why".
fn refusal<W: Write>(out: &mut W, r: &PendingReport) -> anyhow::Result<()> {
    if let Some(k) = &r.history.rejected {
        writeln!(
            out,
            "Why (the kubelet's admission refusal on {}): {} ({})",
            k.node,
            k.reason,
            super::visible(&k.message)
        )?;
    }
    Ok(())
}

/// The free amount of `resource` on `node` from an exact count (the
/// kubelet's at admission) that replaced the store's bound in a shortfall,
/// as the shortfall line shows it: the table says the same number (a new
/// user read `≤1780m` free in the table against `225m free` in the line).
pub(crate) fn exact_free(s: &StateAtFailure, node: &str, resource: &str) -> Option<String> {
    s.shortfalls
        .iter()
        .find(|sf| sf.node == node && sf.resource == resource && sf.exact_from.is_some())
        .map(|sf| sf.display[1].clone())
}

/// The nodes at `when` (`the last failure`, or `the kubelet's refusal` of a pod placed at once).
fn state<W: Write>(out: &mut W, s: &StateAtFailure, when: &str) -> anyhow::Result<()> {
    writeln!(out, "Nodes at {when} ({}; {})", t(s.at), count(s.pods_counted, "pod counted", "pods counted"))?;
    if s.requested_is_lower_bound {
        writeln!(out, "  ≥/≤: lower/upper bounds — the store lacks pod objects (see notes)")?;
    }
    // Marks a value derived from the owner's template.
    let tpl = if s.spec_from.is_some() { " (from the owner's template)" } else { "" };
    if s.pod_known {
        let req: Vec<String> = s.pod_requests.iter().map(|(r, v)| format!("{r} {}", format_amount(r, *v))).collect();
        writeln!(
            out,
            "  the pod requests: {}{tpl}",
            if req.is_empty() { "nothing (BestEffort)".into() } else { req.join(", ") }
        )?;
    }
    if let Some(f) = &s.spec_from {
        writeln!(
            out,
            "  the pod's spec is from the owner's template: {} {}/{} (observed {}); its requests, FAILS FOR THIS POD, \
             the nodes left and the shortfalls below derive from it",
            f.kind,
            f.namespace,
            f.name,
            t(f.observed_at)
        )?;
    }
    // "≥" marks a lower bound: the store lacks some pods' objects.
    let ge = if s.requested_is_lower_bound { "≥" } else { "" };
    let le = if s.requested_is_lower_bound { "≤" } else { "" };
    let shown = shown_nodes(s);
    let rows = s.nodes.iter().zip(&shown).filter(|(_, show)| **show).map(|(n, _)| {
        let get = |name: &str| n.resources.iter().find(|r| r.resource == name);
        let fmt = |name: &str| {
            get(name).map_or("-".into(), |r| {
                format!(
                    "{ge}{}/{} ({ge}{} %)",
                    amount(name, r.requested),
                    amount(name, r.allocatable),
                    percent_text(r.percent)
                )
            })
        };
        let other = n
            .resources
            .iter()
            .filter(|r| !["cpu", "memory", "pods"].contains(&r.resource.as_str()))
            .map(|r| format!("{} {}/{}", r.resource, r.requested, r.allocatable))
            .collect::<Vec<_>>()
            .join(", ");
        let mut flags = Vec::new();
        if n.unschedulable {
            flags.push("cordoned");
        }
        if n.ready == Some(false) {
            flags.push("NotReady");
        }
        let mut name = n.name.clone();
        if !flags.is_empty() {
            name = format!("{name} ({})", flags.join(", "));
        }
        NodeRow {
            node: name,
            cpu: fmt("cpu"),
            cpu_free: match exact_free(s, &n.name, "cpu") {
                // The shortfall below says the kubelet's exact count: so does the table.
                Some(free) => format!("{free} (kubelet)"),
                None => get("cpu").map_or("-".into(), |r| format!("{le}{}", amount("cpu", r.free))),
            },
            memory: fmt("memory"),
            pods: get("pods").map_or("-".into(), |r| format!("{ge}{}/{}", r.requested, r.allocatable)),
            other,
            fails: if n.fails.is_empty() {
                if s.pod_known && s.matches_event == Some(false) {
                    // The event says no node fit: the stored state is not the failure's.
                    "fits*".into()
                } else if s.pod_known {
                    "fits".into()
                } else {
                    "?".into()
                }
            } else {
                n.fails.join("; ")
            },
        }
    });
    writeln!(out, "{}", super::plain(&mut Table::new(rows)))?;
    if s.nodes.iter().any(|n| exact_free(s, &n.name, "cpu").is_some()) {
        writeln!(
            out,
            "  (kubelet): free as the kubelet counted it when it refused the pod, exact; the requested amounts are \
             the store's pods"
        )?;
    }
    let hidden = shown.iter().filter(|show| !**show).count();
    if hidden > 0 {
        writeln!(out, "  … and {hidden} more nodes (use -o json for all)")?;
    }
    if s.pod_known && s.matches_event == Some(false) && s.nodes.iter().any(|n| n.fails.is_empty()) {
        writeln!(
            out,
            "  * fits on the stored objects, yet the event says no node fit at the failure: those objects are not \
             the failure's state (see notes)"
        )?;
    }
    for c in &s.constraints {
        writeln!(out, "  {} excluded {} node(s): {} — {}", c.plugin, c.nodes.len(), names(&c.nodes), c.reason)?;
    }
    if s.pod_known {
        if s.left.is_empty() {
            writeln!(out, "  no node passes the pod's constraints")?;
        } else {
            writeln!(out, "  left after the constraints: {}{tpl}", names(&s.left))?;
        }
    }
    for sf in &s.shortfalls {
        // As the table: with a lower bound on the requested amounts, free is
        // at most and short at least — unless exact numbers replaced them.
        let (le, ge, from) = match &sf.exact_from {
            Some(from) => ("", "", format!(" ({from})")),
            None => (le, ge, String::new()),
        };
        writeln!(
            out,
            "  {} {}: the pod requests {}, {le}{} free → {ge}{} short{from}{tpl}",
            sf.node, sf.resource, sf.display[0], sf.display[1], sf.display[2]
        )?;
    }
    if let Some(m) = &s.reconstructed_message {
        let verdict = match s.matches_event {
            Some(true) => "same counts as the event",
            Some(false) => "DIFFERENT from the event (see notes)",
            None => "not comparable with the event",
        };
        writeln!(out, "  kube-scheduler's filters on this state: \"{m}\" ({verdict})")?;
    }
    Ok(())
}

/// Rows of the node table at most, and node names per list (JSON has them
/// all): a large cluster's thousands of nodes would bury the chain.
const NODES_SHOWN: usize = 20;

/// Which of `s.nodes` the table shows: all of them up to [`NODES_SHOWN`];
/// beyond, only those that explain the failure — the nodes short of a
/// resource, then those left after the constraints, then those the pod fits
/// (up to [`NODES_SHOWN`], shown in name order) — or, when none does, the
/// first [`NODES_SHOWN`]. The constraint lines say why the others are out.
fn shown_nodes(s: &StateAtFailure) -> Vec<bool> {
    if s.nodes.len() <= NODES_SHOWN {
        return vec![true; s.nodes.len()];
    }
    let rank = |n: &kdrift_analyze::NodeLine| {
        if s.shortfalls.iter().any(|sf| sf.node == n.name) {
            0
        } else if s.left.contains(&n.name) {
            1
        } else if s.pod_known && n.fails.is_empty() {
            2
        } else {
            3
        }
    };
    let mut order: Vec<(usize, u8)> = s.nodes.iter().map(rank).enumerate().collect();
    order.sort_by_key(|(_, r)| *r); // stable: name order within a rank
    let explaining = order.iter().filter(|(_, r)| *r < 3).count();
    let mut shown = vec![false; s.nodes.len()];
    let take = if explaining > 0 { explaining.min(NODES_SHOWN) } else { NODES_SHOWN };
    for (i, _) in order.into_iter().take(take) {
        shown[i] = true;
    }
    shown
}

/// Node names, the first [`NODES_SHOWN`] of them then how many more.
fn names(nodes: &[String]) -> String {
    let shown: Vec<std::borrow::Cow<'_, str>> = nodes.iter().take(NODES_SHOWN).map(|n| super::visible(n)).collect();
    if nodes.len() <= NODES_SHOWN {
        return shown.join(", ");
    }
    format!("{} … and {} more", shown.join(", "), nodes.len() - NODES_SHOWN)
}

/// How many holders the table shows per node (JSON has them all).
const HOLDERS_SHOWN: usize = 12;

#[derive(Tabled)]
struct HolderRow {
    #[tabled(rename = "POD")]
    pod: String,
    #[tabled(rename = "REQUEST")]
    request: String,
    #[tabled(rename = "BOUND")]
    bound: String,
    #[tabled(rename = "BROUGHT BY")]
    by: String,
}

/// What brought a pod, in words.
pub fn arrival(a: &Arrival) -> String {
    match a {
        Arrival::Drain { operation, replaced, from_node, in_burst, .. } => {
            let mut s = format!("drain #{operation}");
            if let (Some(p), Some(f)) = (replaced, from_node) {
                s.push_str(&format!(": replaces {p} evicted from {f}"));
            }
            if *in_burst {
                s.push_str(" (burst after the node came back)");
            }
            s
        }
        Arrival::ScaleUp { deployment, message, hpa: Some(h), .. } => format!("HPA {h}, {deployment}: {message}"),
        Arrival::ScaleUp { deployment, message, rollout: true, .. } => format!("rollout of {deployment}: {message}"),
        Arrival::ScaleUp { deployment, message, .. } => format!("{deployment}: {message}"),
        Arrival::Evicted { cause, by, replaced, from_node, .. } => {
            let who = match (cause, by) {
                (Cause::Descheduler, Some(b)) => format!("descheduler {b}"),
                (Cause::Descheduler, None) => "descheduler".into(),
                (Cause::Kdrift, Some(b)) => format!("kdrift rebalance {b}"),
                (Cause::Kdrift, None) => "kdrift rebalance".into(),
                (Cause::Karpenter, Some(b)) => format!("Karpenter disruption ({b})"),
                (Cause::Karpenter, None) => "Karpenter disruption".into(),
                (Cause::ClusterAutoscaler, _) => "cluster-autoscaler scale-down".into(),
                (Cause::NodeController, _) | (Cause::Hpa, _) => "node controller".into(),
            };
            match from_node {
                Some(f) => format!("{who}: replaces {replaced} evicted from {f}"),
                None => format!("{who}: replaces {replaced}"),
            }
        }
        Arrival::DaemonSet { name } => format!("DaemonSet {name}"),
        Arrival::Created { owner: Some(o) } => format!("created by {o}"),
        Arrival::Created { owner: None } => "created (owner unknown)".into(),
    }
}

fn why_full<W: Write>(out: &mut W, w: &WhyFull) -> anyhow::Result<()> {
    for f in &w.fills {
        writeln!(out)?;
        writeln!(
            out,
            "Why {} is full ({}/{} {} requested by {}, largest first)",
            f.node,
            amount(&f.resource, f.requested),
            amount(&f.resource, f.allocatable),
            f.resource,
            count(f.holders.len(), "pod", "pods")
        )?;
        for b in &f.bursts {
            writeln!(out, "  {}", b.summary)?;
        }
        for r in &f.runs {
            writeln!(out, "  {}", r.summary)?;
        }
        let rows = f.holders.iter().take(HOLDERS_SHOWN).map(|h| HolderRow {
            pod: format!("{}/{}", h.namespace, h.name),
            request: amount(&f.resource, h.request),
            bound: h.bound_at.map_or("-".into(), t),
            by: arrival(&h.arrival),
        });
        writeln!(out, "{}", super::plain(&mut Table::new(rows)))?;
        if f.holders.len() > HOLDERS_SHOWN {
            let rest = &f.holders[HOLDERS_SHOWN..];
            writeln!(
                out,
                "  … and {} more pods holding {} (-o json lists them all)",
                rest.len(),
                amount(&f.resource, rest.iter().map(|h| h.request).sum())
            )?;
        }
    }
    if w.nodes_not_explained > 0 {
        writeln!(out)?;
        writeln!(
            out,
            "({} more nodes are left but short; only the {} closest to fitting are explained above)",
            w.nodes_not_explained,
            w.fills.len()
        )?;
    }
    for a in &w.anchors {
        writeln!(out)?;
        let anchor = super::visible(&format!("{}/{}", a.namespace, a.name)).into_owned();
        writeln!(out, "Why {anchor} (the pod affinity's anchor) is on {}", super::visible(&a.node))?;
        let req: Vec<String> = a.requests.iter().map(|(r, v)| format!("{r} {}", format_amount(r, *v))).collect();
        writeln!(out, "  requests: {}", req.join(", "))?;
        for line in &a.why {
            writeln!(out, "  - {line}")?;
        }
    }
    Ok(())
}
