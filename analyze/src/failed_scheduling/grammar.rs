//! The message grammars of each kube-scheduler era, over already normalised text.
//!
//! Every function here takes text and fills parts of a
//! [`FailedScheduling`]; none can fail: text that fits no rule is kept verbatim
//! (in [`Reason::Other`], `post_filter`, `unparsed` or [`Preemption::Text`]).
//! All slicing is at positions returned by `find`/`match_indices` or after ASCII
//! bytes, so it stays on `char` boundaries for any input.

use std::collections::HashMap;

use super::reason::Reason;
use super::wording::classify;
use super::{FailedScheduling, MessageForm, Preemption, ReasonCount};

/// How deep a preemption text may nest another `0/N nodes are available:`
/// message before it is kept as text (real messages nest once; this bounds the
/// recursion on hostile input).
const MAX_NESTING: usize = 4;

/// Undoes the escaping a message picks up when pasted from YAML or JSON:
/// `''` → `'` (YAML single quotes), `\u0027`, `\u0022`, `\"`, `\u003c`,
/// `\u003e`, `\u0026` (JSON), a typographic `’`, literal `\n` and `\r\n` → line break.
pub(super) fn normalise(text: &str) -> String {
    const ESCAPES: [(&str, &str); 10] = [
        ("\r\n", "\n"),
        ("\\u0027", "'"),
        ("\\u0022", "\""),
        ("\\\"", "\""),
        ("\\u003c", "<"),
        ("\\u003e", ">"),
        ("\\u0026", "&"),
        ("\\n", "\n"),
        ("\u{2019}", "'"),
        ("''", "'"),
    ];
    let mut out = text.to_string();
    for (from, to) in ESCAPES {
        if out.contains(from) {
            out = out.replace(from, to);
        }
    }
    out
}

/// Collapses every whitespace run (line breaks of a wrapped paste included) to one space.
pub(super) fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Byte ranges strictly inside `"…"` pairs (claim, volume and plugin names), so
/// that a `,`, `.` or `preemption: ` inside a quoted name never splits the
/// text. Quotes pair left to right; a last quote without a partner opens nothing.
struct Quotes(Vec<(usize, usize)>);

impl Quotes {
    fn of(text: &str) -> Self {
        let mut spans = Vec::new();
        let mut open = None;
        for (at, byte) in text.bytes().enumerate() {
            if byte == b'"' {
                match open.take() {
                    Some(start) => spans.push((start, at)),
                    None => open = Some(at),
                }
            }
        }
        Quotes(spans)
    }

    /// Whether byte `at` lies between an opening and its closing quote.
    fn inside(&self, at: usize) -> bool {
        let before = self.0.partition_point(|&(start, _)| start < at);
        before > 0 && at < self.0[before - 1].1
    }

    /// Positions of `pattern` in `text` (the text these quotes were read from)
    /// outside quoted names.
    fn find_all<'t>(&'t self, text: &'t str, pattern: &'t str) -> impl Iterator<Item = usize> + 't {
        text.match_indices(pattern).map(|(at, _)| at).filter(|&at| !self.inside(at))
    }
}

/// Splits on `separator` outside quoted names.
pub(super) fn split_outside_quotes<'t>(text: &'t str, separator: &str) -> Vec<&'t str> {
    let quotes = Quotes::of(text);
    let mut parts = Vec::new();
    let mut start = 0;
    for at in quotes.find_all(text, separator) {
        if at >= start {
            parts.push(&text[start..at]);
            start = at + separator.len();
        }
    }
    parts.push(&text[start..]);
    parts
}

/// Reads leading ASCII digits: their value (saturating at `u32::MAX`) and the rest.
pub(super) fn take_number(text: &str) -> Option<(u32, &str)> {
    let end = text.bytes().take_while(u8::is_ascii_digit).count();
    if end == 0 {
        return None;
    }
    let value =
        text[..end].bytes().fold(0u32, |acc, digit| acc.saturating_mul(10).saturating_add(u32::from(digit - b'0')));
    Some((value, &text[end..]))
}

/// `<digits> <rest>`: a count followed by one space.
pub(super) fn take_count(text: &str) -> Option<(u32, &str)> {
    let (count, rest) = take_number(text)?;
    Some((count, rest.strip_prefix(' ')?))
}

/// Matches `M/N nodes are available` followed by `:`, `.` or the end; returns N
/// and the text after the colon.
pub(super) fn modern_prefix(text: &str) -> Option<(u32, &str)> {
    let (_, rest) = take_number(text)?;
    let (total, rest) = take_number(rest.strip_prefix('/')?)?;
    let rest = rest.strip_prefix(" nodes are available")?;
    if let Some(body) = rest.strip_prefix(':') {
        return Some((total, body.trim_start()));
    }
    (rest.is_empty() || rest.starts_with('.')).then_some((total, rest))
}

/// Parses what follows `0/N nodes are available:` (1.10+): counted items or
/// a PreFilter message, a period, post-filter texts, and `preemption: …`.
pub(super) fn modern_body(out: &mut FailedScheduling, body: &str, depth: usize) {
    let (head, preemption) = split_preemption(body);
    let (list, after) = split_terminator(head);
    if take_count(list).is_some() {
        out.items = split_items(list)
            .into_iter()
            .filter_map(take_count)
            .map(|(count, reason)| ReasonCount { count, reason: classify(reason) })
            .collect();
    } else if !list.is_empty() {
        out.prefilter = Some(classify(list));
    }
    // `after` keeps the `, ` that joined the last post-filter text to `preemption:`.
    out.post_filter = split_outside_quotes(after.trim_end_matches(','), ", ")
        .into_iter()
        .map(|text| text.trim().trim_end_matches('.').trim_end())
        .filter(|text| !text.is_empty())
        .map(str::to_string)
        .collect();
    if let Some(text) = preemption {
        out.preemption = Some(preemption_part(text, depth, out.truncated));
    }
}

/// Splits at the first `preemption: ` that starts the text or follows a space.
fn split_preemption(body: &str) -> (&str, Option<&str>) {
    const MARK: &str = "preemption: ";
    let quotes = Quotes::of(body);
    for at in quotes.find_all(body, MARK) {
        if at == 0 || body.as_bytes()[at - 1] == b' ' {
            return (&body[..at], Some(&body[at + MARK.len()..]));
        }
    }
    (body, None)
}

/// Splits at the first run of periods that ends the text or is followed by a
/// space. Periods inside a reason (`nvidia.com/gpu`, `{node.kubernetes.io/x: }`,
/// claim names) are followed by other characters, so they never end it; nor
/// do periods inside a quoted name.
pub(super) fn split_terminator(text: &str) -> (&str, &str) {
    let bytes = text.as_bytes();
    let quotes = Quotes::of(text);
    let mut at = 0;
    while let Some(offset) = text[at..].find('.') {
        let start = at + offset;
        let end = start + bytes[start..].iter().take_while(|&&b| b == b'.').count();
        if quotes.inside(start) {
            at = start + 1;
            continue;
        }
        if end == bytes.len() || bytes[end] == b' ' {
            return (text[..start].trim(), text[end..].trim());
        }
        at = end;
    }
    (text.trim(), "")
}

/// Splits a counted list on `, ` followed by digits and a space only: the 1.18
/// taint wording `node(s) had taint {k: v}, that the pod didn't tolerate`
/// contains a bare `, `. A `, ` inside a quoted name never splits.
pub(super) fn split_items(list: &str) -> Vec<&str> {
    let quotes = Quotes::of(list);
    let mut items = Vec::new();
    let mut start = 0;
    for at in quotes.find_all(list, ", ") {
        if at >= start && take_count(&list[at + 2..]).is_some() {
            items.push(&list[start..at]);
            start = at + 2;
        }
    }
    items.push(&list[start..]);
    items
}

/// The text after `preemption: `: a nested `0/N nodes are available: …` parsed
/// with the same grammar, or a sentence kept without its final period(s).
fn preemption_part(text: &str, depth: usize, truncated: bool) -> Preemption {
    let text = text.trim();
    if depth < MAX_NESTING {
        if let Some((total, body)) = modern_prefix(text) {
            let mut nested = FailedScheduling {
                total_nodes: Some(total),
                form: MessageForm::Modern,
                truncated,
                raw: text.to_string(),
                ..FailedScheduling::default()
            };
            modern_body(&mut nested, body, depth + 1);
            return Preemption::Nodes(Box::new(nested));
        }
    }
    Preemption::Text(text.trim_end_matches('.').trim_end().to_string())
}

/// `No nodes are available that match all of the [following ]predicates:[:] Name (n), …`
/// (<=1.9). Returns `false` when the text is not of this form.
pub(super) fn predicate_list(out: &mut FailedScheduling, text: &str) -> bool {
    let Some(rest) = text.strip_prefix("No nodes are available that match all of the ") else {
        return false;
    };
    let Some(rest) = rest.strip_prefix("following predicates").or_else(|| rest.strip_prefix("predicates")) else {
        return false;
    };
    let body = rest.trim_start_matches(':').trim().trim_end_matches('.').trim_end();
    // Split after `(n)` only, so a name that fails to parse merges with the next
    // segment instead of losing its count.
    // The `(n)` is looked for in the piece since the previous `), ` only, which
    // keeps a long run of unparsable pieces linear.
    let quotes = Quotes::of(body);
    let (mut start, mut piece) = (0, 0);
    for at in quotes.find_all(body, "), ") {
        if name_count(&body[piece..=at]).is_some() {
            if let Some(item) = name_count(&body[start..=at]) {
                out.items.push(item);
                start = at + 3;
            }
        }
        piece = at + 3;
    }
    let last = body[start..].trim();
    match name_count(last) {
        Some(item) => out.items.push(item),
        None if !last.is_empty() => out.unparsed.push(last.to_string()),
        None => {}
    }
    true
}

/// `Name (n)` → (n, Name).
fn name_count(segment: &str) -> Option<ReasonCount> {
    let (name, count) = segment.strip_suffix(')')?.rsplit_once(" (")?;
    let (count, rest) = take_number(count)?;
    rest.is_empty().then(|| ReasonCount { count, reason: classify(name) })
}

/// 1.4/1.5: `pod (x) failed to fit in any node` then one line per node,
/// `fit failure on node (n): R1, R2`. Works on the text with its line breaks.
pub(super) fn per_node_lines(out: &mut FailedScheduling, text: &str) -> bool {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_default().trim();
    if !(first.starts_with("pod (") && first.ends_with(") failed to fit in any node")) {
        return false;
    }
    let mut tally = Tally::default();
    for line in lines.map(str::trim).filter(|line| !line.is_empty()) {
        let Some((node, reasons)) = line.strip_prefix("fit failure on node (").and_then(|rest| rest.split_once("): "))
        else {
            out.unparsed.push(collapse_whitespace(line));
            continue;
        };
        for reason in reasons.split(", ").map(str::trim).filter(|r| !r.is_empty()) {
            let reason = classify(&collapse_whitespace(reason));
            tally.add(reason.clone());
            out.per_node.push((node.to_string(), reason));
        }
    }
    out.items = tally.items;
    true
}

/// 1.6 predicate errors: `[SchedulerPredicates failed due to X, which is
/// unexpected., …]` (one per failing node; a single error has no brackets).
/// Identical reasons are counted together in order of first appearance.
pub(super) fn bracketed(out: &mut FailedScheduling, text: &str) -> bool {
    const MARK: &str = "SchedulerPredicates failed due to ";
    const END: &str = ", which is unexpected.";
    let inner = match text.strip_prefix('[') {
        Some(rest) => rest.trim_end_matches('.').trim_end().trim_end_matches(']'),
        None => text,
    };
    if !inner.starts_with(MARK) {
        return false;
    }
    let inner = inner.trim();
    let quotes = Quotes::of(inner);
    // The first `pattern` at or after byte `from`, outside quoted names.
    let find_from = |pattern: &str, from: usize| {
        inner[from..].match_indices(pattern).map(|(at, _)| from + at).find(|&at| !quotes.inside(at))
    };
    let separator = format!(", {MARK}");
    let mut tally = Tally::default();
    let mut at = 0;
    while at < inner.len() {
        let element;
        if inner[at..].starts_with(MARK) {
            let start = at + MARK.len();
            match find_from(END, start) {
                Some(end) => {
                    element = &inner[start..end];
                    at = end + END.len();
                }
                None => {
                    element = inner[start..].trim_end_matches(", which is unexpected");
                    at = inner.len();
                }
            }
        } else {
            let next = find_from(&separator, at).unwrap_or(inner.len());
            element = &inner[at..next];
            at = next;
        }
        if !element.trim().is_empty() {
            tally.add(classify(element));
        }
        let rest = &inner[at..];
        let rest = rest.strip_prefix(',').unwrap_or(rest);
        at = inner.len() - rest.trim_start().len();
    }
    out.items = tally.items;
    true
}

/// Counts equal reasons, keeping the order in which each first appeared.
#[derive(Default)]
pub(super) struct Tally {
    pub(super) items: Vec<ReasonCount>,
    index: HashMap<Reason, usize>,
}

impl Tally {
    pub(super) fn add(&mut self, reason: Reason) {
        match self.index.get(&reason) {
            Some(&at) => self.items[at].count = self.items[at].count.saturating_add(1),
            None => {
                self.index.insert(reason.clone(), self.items.len());
                self.items.push(ReasonCount { count: 1, reason });
            }
        }
    }
}
