//! Parser for the message of a `FailedScheduling` event (or of a pod's
//! `PodScheduled=False` condition): how many nodes the scheduler knew, and how
//! many of them failed on which check.
//!
//! Understands every kube-scheduler era listed in the project reference
//! (`shared/reference/kubernetes-events.md` §1): the 1.10+ counted form
//! `0/N nodes are available: 1 Insufficient cpu, 4 node(s) didn't match pod
//! affinity rules.` with its PreFilter, post-filter and nested `preemption: …`
//! parts (`.` or `..` endings of 1.24–1.27), the <=1.9 predicate list, the
//! 1.4/1.5 per-node lines and the 1.6 bracketed predicate errors, plus the
//! non-counting messages (`no nodes available to schedule pods`, deleting pods,
//! bind errors), the ~2015 `failed to find fit for pod: …Node NAME: Predicate`
//! form and Volcano's `0/N nodes are unavailable: …`. Quoted names
//! (`persistentvolumeclaim "a.b, c"`) never split a list. [`parse`] never fails and never panics; what it cannot place
//! is kept verbatim, and [`FailedScheduling::raw`] always holds the input.
//!
//! ```
//! use kdrift_analyze::{parse_failed_scheduling, Reason};
//! let parsed = parse_failed_scheduling("0/5 nodes are available: 1 Insufficient cpu, 4 node(s) didn't match pod affinity rules.");
//! assert_eq!(parsed.total_nodes, Some(5));
//! assert_eq!(parsed.items[1].count, 4);
//! assert_eq!(parsed.items[1].reason, Reason::PodAffinity);
//! ```

mod grammar;
mod other_forms;
mod reason;
mod wording;

#[cfg(test)]
mod era_tests;
#[cfg(test)]
mod form_tests;
#[cfg(test)]
mod fuzz_tests;
#[cfg(test)]
mod tests;

use std::fmt;

use serde::Serialize;

pub use reason::{NodeConditionType, PvcProblem, Reason, ReasonKind};

/// Which shape of message was recognised (each belongs to an era of kube-scheduler).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum MessageForm {
    /// 1.10+: `0/N nodes are available: <count> <reason>, ….` (also ~1.8–1.9 with
    /// predicate names as reasons, and other schedulers copying the shape).
    Modern,
    /// <=1.9: `No nodes are available that match all of the [following ]predicates:[:] Name (n), ….`
    PredicateList,
    /// 1.4/1.5: `pod (x) failed to fit in any node` then `fit failure on node (n): …` lines.
    PerNodeLines,
    /// 1.6: `[SchedulerPredicates failed due to …, which is unexpected., …]`.
    Bracketed,
    /// `no nodes available to schedule pods`: the scheduler's node list was empty
    /// (no node registered or, before ~1.6, none Ready and schedulable);
    /// `prefilter` is [`Reason::NoNodesAvailable`].
    NoNodes,
    /// ~2015 (Kubernetes 0.x–1.0): `failed to find fit for pod: <pod as a Go
    /// struct>Node NAME: Pred1,Pred2Node …`; nodes and predicates are in `per_node`.
    FindFit,
    /// Volcano: `0/N nodes are unavailable: <count> <reason>, ….`, reasons
    /// possibly wrapped as `plugin NAME predicates failed REASON`.
    Volcano,
    /// `skip schedule deleting pod: <ns>/<name>`: the pod was being deleted.
    SkipDeletingPod,
    /// Binding failed after a node was chosen (`running PreBind plugin "VolumeBinding": …`,
    /// before ~1.20 `Binding rejected: …`); the text stays in `raw`.
    BindError,
    /// A single known reason without prefix or count, as returned by ~1.10–1.17
    /// pre-checks (`pod has unbound immediate PersistentVolumeClaims`,
    /// `persistentvolumeclaim "x" not found`); it is in `prefilter`.
    BareReason,
    /// Anything else (other schedulers, empty text); only `raw` is set.
    #[default]
    Other,
}

/// A parsed FailedScheduling message.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct FailedScheduling {
    /// N of `0/N nodes are available`: every node the scheduler knew (saturates
    /// at `u32::MAX`); for [`MessageForm::Volcano`], the nodes it tried. `Some(0)`
    /// for [`MessageForm::NoNodes`]; `None` when the message does not state it
    /// (predicate list, per-node lines, bracketed, `failed to find fit`…).
    pub total_nodes: Option<u32>,
    /// Which shape of message this was.
    pub form: MessageForm,
    /// A reason that rejected the pod before any node was looked at (PreFilter,
    /// 1.25+: `0/6 nodes are available: pod has unbound immediate
    /// PersistentVolumeClaims.`), or the single reason of a
    /// [`MessageForm::BareReason`]. Before 1.25 the same text came with a count
    /// and is in `items`.
    pub prefilter: Option<Reason>,
    /// `(count, reason)` pairs in message order (kube-scheduler sorts them as
    /// text). One node can add several reasons, so counts may sum to more than
    /// `total_nodes`. For per-node lines and bracketed errors, equal reasons are
    /// counted in order of first appearance.
    pub items: Vec<ReasonCount>,
    /// `(node name, reason)` when the era names nodes ([`MessageForm::PerNodeLines`],
    /// [`MessageForm::FindFit`]), one entry per reason of each node, in message order.
    pub per_node: Vec<(String, Reason)>,
    /// Post-filter texts before `preemption:`, without their final period,
    /// e.g. `no new claims to deallocate` (DRA).
    pub post_filter: Vec<String>,
    /// What the preemption dry run reported (1.24+), if the message says.
    pub preemption: Option<Preemption>,
    /// Text the grammar of the recognised form could not place, verbatim.
    pub unparsed: Vec<String>,
    /// The message ended with ` ...`: kube-scheduler cut it at 1024 bytes, so the
    /// last item or the preemption part may be incomplete (the pod's
    /// `PodScheduled` condition keeps the full text).
    pub truncated: bool,
    /// The message carried the event correlator's `(combined from similar events): `
    /// prefix (stripped before parsing).
    pub combined: bool,
    /// The input exactly as given.
    pub raw: String,
}

/// One `<count> <reason>` item: `count` nodes failed with `reason`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct ReasonCount {
    /// Number of nodes (saturates at `u32::MAX`).
    pub count: u32,
    /// What they failed on.
    pub reason: Reason,
}

/// The text after `preemption: `.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Preemption {
    /// A nested `0/N nodes are available: …` (e.g. `6 Preemption is not helpful for
    /// scheduling`), parsed with the same grammar.
    Nodes(Box<FailedScheduling>),
    /// A sentence without its final period(s), e.g. `not eligible due to preemptionPolicy=Never`.
    Text(String),
}

impl fmt::Display for ReasonCount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.count, self.reason)
    }
}

impl FailedScheduling {
    /// The PreFilter reason (if any) followed by every item's reason, in order.
    pub fn reasons(&self) -> impl Iterator<Item = &Reason> {
        self.prefilter.iter().chain(self.items.iter().map(|item| &item.reason))
    }
}

/// Parses one FailedScheduling message of any era. Never fails: unknown text
/// ends up in [`MessageForm::Other`], [`Reason::Other`] or
/// [`FailedScheduling::unparsed`], and `raw` keeps the input.
#[must_use]
pub fn parse(message: &str) -> FailedScheduling {
    let mut out = FailedScheduling { raw: message.to_string(), ..FailedScheduling::default() };
    let normalised = grammar::normalise(message);
    let mut text = normalised.trim();
    if let Some(rest) = text.strip_prefix("(combined from similar events):") {
        out.combined = true;
        text = rest.trim_start();
    }
    if let Some(rest) = text.strip_suffix(" ...") {
        out.truncated = true;
        text = rest.trim_end();
    }
    // The ~2015 scheduler wrote `Error scheduling: <error>`.
    if let Some(rest) = text.strip_prefix("Error scheduling:") {
        text = rest.trim_start();
    }
    if grammar::per_node_lines(&mut out, text) {
        out.form = MessageForm::PerNodeLines;
        return out;
    }
    let text = grammar::collapse_whitespace(text);
    out.form = if let Some((total, body)) = grammar::modern_prefix(&text) {
        out.total_nodes = Some(total);
        grammar::modern_body(&mut out, body, 0);
        MessageForm::Modern
    } else if let Some((total, body)) = other_forms::volcano_prefix(&text) {
        out.total_nodes = total;
        other_forms::volcano_body(&mut out, body);
        MessageForm::Volcano
    } else if other_forms::find_fit(&mut out, &text) {
        MessageForm::FindFit
    } else if grammar::predicate_list(&mut out, &text) {
        MessageForm::PredicateList
    } else if grammar::bracketed(&mut out, &text) {
        MessageForm::Bracketed
    } else {
        single_sentence(&mut out, &text)
    };
    out
}

/// Forms without a node list: no nodes, deleting pod, bind errors, a bare reason.
fn single_sentence(out: &mut FailedScheduling, text: &str) -> MessageForm {
    const BIND_ERRORS: [&str; 6] = [
        "running PreBind plugin",
        "running Bind plugin",
        "Binding rejected",
        "binding rejected",
        "Operation cannot be fulfilled on pods/binding",
        "AssumePod failed",
    ];
    let sentence = text.trim_end_matches('.').trim_end();
    if sentence == "no nodes available to schedule pods" {
        out.total_nodes = Some(0);
        out.prefilter = Some(Reason::NoNodesAvailable);
        return MessageForm::NoNodes;
    }
    if sentence.starts_with("skip schedule deleting pod") {
        return MessageForm::SkipDeletingPod;
    }
    let old_prebind = sentence.starts_with("error while running ") && sentence.contains("bind plugin");
    if old_prebind || BIND_ERRORS.iter().any(|prefix| sentence.starts_with(prefix)) {
        return MessageForm::BindError;
    }
    match wording::classify(sentence) {
        Reason::Other(_) => MessageForm::Other,
        known => {
            out.prefilter = Some(known);
            MessageForm::BareReason
        }
    }
}
