//! The grammars of messages kube-scheduler no longer writes or never wrote:
//! Volcano's `0/N nodes are unavailable: …` and the ~2015
//! `failed to find fit for pod: …Node NAME: Predicate` form.
//!
//! Like the kube-scheduler grammars (`grammar.rs`), nothing here can fail or panic: text that
//! fits no rule is kept in [`Reason::Other`] or `unparsed`, and slicing is at
//! positions returned by `find`/`match_indices` or after ASCII bytes.

use super::grammar::{split_items, split_outside_quotes, split_terminator, take_count, take_number, Tally};
use super::reason::Reason;
use super::wording::{classify, unwrap_error};
use super::{FailedScheduling, ReasonCount};

/// Volcano's `FitErrors.Error()` (`pkg/scheduler/api/unschedule_info.go`):
/// `0/N nodes are unavailable: <count> <reason>, ….` where N counts the nodes
/// that were tried, or `all nodes are unavailable: …` when the common error is
/// set. Returns N (`None` for the latter) and the text after the colon.
pub(super) fn volcano_prefix(text: &str) -> Option<(Option<u32>, &str)> {
    let (total, rest) = match text.strip_prefix("all nodes are unavailable") {
        Some(rest) => (None, rest),
        None => {
            let (_, rest) = take_number(text)?;
            let (total, rest) = take_number(rest.strip_prefix('/')?)?;
            (Some(total), rest.strip_prefix(" nodes are unavailable")?)
        }
    };
    if let Some(body) = rest.strip_prefix(':') {
        return Some((total, body.trim_start()));
    }
    (rest.is_empty() || rest.starts_with('.')).then_some((total, rest))
}

/// The counted list of a Volcano message. Items are kube-scheduler reasons,
/// Volcano's own (`node(s) resource fit failed`), or predicate errors
/// `plugin NAME predicates failed REASON` whose status message may join
/// several reasons with `, ` (each then gets the item's count).
pub(super) fn volcano_body(out: &mut FailedScheduling, body: &str) {
    let (list, after) = split_terminator(body);
    if !after.is_empty() {
        out.unparsed.push(after.to_string());
    }
    for item in split_items(list) {
        match take_count(item) {
            Some((count, text)) => {
                out.items.extend(volcano_reasons(text).into_iter().map(|reason| ReasonCount { count, reason }));
            }
            None if !item.trim().is_empty() => out.unparsed.push(item.trim().to_string()),
            None => {}
        }
    }
}

/// One Volcano item's reasons: the whole text when it is known (or nothing
/// better is), else each `, `-joined part when every part is known.
fn volcano_reasons(text: &str) -> Vec<Reason> {
    let whole = classify(text);
    if !matches!(whole, Reason::Other(_)) {
        return vec![whole];
    }
    let parts: Vec<Reason> = split_outside_quotes(unwrap_error(text), ", ").into_iter().map(classify).collect();
    if parts.len() > 1 && parts.iter().all(|reason| !matches!(reason, Reason::Other(_))) {
        parts
    } else {
        vec![whole]
    }
}

/// ~2015 (Kubernetes 0.x–1.0): `failed to find fit for pod: <the pod printed
/// as a Go struct>Node NAME: Pred1,Pred2Node NAME2: …` (OpenShift printed
/// `failed to find fit for pod, Node NAME: Pred`). The node lines are read
/// back from the end, so a struct that holds `Node ` is never taken for one,
/// and a struct cut before any node line leaves `items` empty. Returns `false`
/// when the text is not of this form.
pub(super) fn find_fit(out: &mut FailedScheduling, text: &str) -> bool {
    const NODE: &str = "Node ";
    let Some(rest) = text.strip_prefix("failed to find fit for pod") else {
        return false;
    };
    let tail = match rest.strip_prefix(':').or_else(|| rest.strip_prefix(',')) {
        Some(tail) => tail.trim(),
        None if rest.is_empty() => rest,
        None => return false,
    };
    let starts: Vec<usize> = tail.match_indices(NODE).map(|(at, _)| at).collect();
    // The first of the node lines that run to the end of the text.
    let (mut first, mut end) = (starts.len(), tail.len());
    for (index, &start) in starts.iter().enumerate().rev() {
        if node_line(&tail[start + NODE.len()..end]).is_none() {
            break;
        }
        (first, end) = (index, start);
    }
    let mut tally = Tally::default();
    for (index, &start) in starts.iter().enumerate().skip(first) {
        let stop = starts.get(index + 1).copied().unwrap_or(tail.len());
        let Some((node, predicates)) = node_line(&tail[start + NODE.len()..stop]) else { continue };
        for predicate in predicates {
            let reason = classify(predicate);
            tally.add(reason.clone());
            out.per_node.push((node.to_string(), reason));
        }
    }
    let before = tail[..end].trim();
    if out.per_node.is_empty() && !before.is_empty() && !before.starts_with('{') && !before.starts_with("&{") {
        out.unparsed.push(before.to_string());
    }
    out.items = tally.items;
    true
}

/// `NAME: Pred1,Pred2` (the text after `Node `): the node name and predicate
/// names, none empty or holding spaces, braces, `:` or `,`.
fn node_line(segment: &str) -> Option<(&str, Vec<&str>)> {
    let (node, predicates) = segment.split_once(": ")?;
    let bad = |text: &str| {
        text.is_empty() || text.contains(|c: char| c.is_whitespace() || matches!(c, '{' | '}' | ':' | ','))
    };
    let node = node.trim();
    let predicates: Vec<&str> = predicates.trim().trim_end_matches(',').split(',').map(str::trim).collect();
    (!bad(node) && !predicates.iter().any(|p| bad(p))).then_some((node, predicates))
}
