//! Table test over the real messages in `shared/fixtures/real/failedscheduling.tsv`,
//! and the small builders the other test files share.
//!
//! The file is read in place (never copied into the project). Every row must
//! have a full expected parse written down here and every expectation must
//! match a row, so a new row without an expectation fails the test. A message
//! holding `  ->  ` is two messages an operator pasted in a row: each part is
//! parsed on its own.

use std::collections::BTreeSet;
use std::path::PathBuf;

use super::*;

// ---- builders shared with era_tests.rs and fuzz_tests.rs ----

pub(super) fn rc(count: u32, reason: Reason) -> ReasonCount {
    ReasonCount { count, reason }
}

pub(super) fn insufficient(resource: &str) -> Reason {
    Reason::Insufficient { resource: resource.to_string() }
}

pub(super) fn taint(key: &str, value: &str) -> Reason {
    Reason::UntoleratedTaint { key: Some(key.to_string()), value: Some(value.to_string()) }
}

pub(super) fn any_taint() -> Reason {
    Reason::UntoleratedTaint { key: None, value: None }
}

pub(super) fn pvc(claim: Option<&str>, problem: PvcProblem) -> Reason {
    Reason::Pvc { claim: claim.map(str::to_string), problem }
}

pub(super) fn other(text: &str) -> Reason {
    Reason::Other(text.to_string())
}

/// A `0/total nodes are available: …` parse with these items (raw left empty).
pub(super) fn modern(total: u32, items: Vec<ReasonCount>) -> FailedScheduling {
    FailedScheduling { total_nodes: Some(total), form: MessageForm::Modern, items, ..FailedScheduling::default() }
}

/// `outer` with a nested `preemption: 0/total nodes are available: …`.
pub(super) fn preempt(outer: FailedScheduling, total: u32, items: Vec<ReasonCount>) -> FailedScheduling {
    FailedScheduling { preemption: Some(Preemption::Nodes(Box::new(modern(total, items)))), ..outer }
}

/// Clears `raw` at every level, so expectations need not repeat the input.
pub(super) fn without_raw(mut parsed: FailedScheduling) -> FailedScheduling {
    parsed.raw.clear();
    if let Some(Preemption::Nodes(nested)) = parsed.preemption {
        parsed.preemption = Some(Preemption::Nodes(Box::new(without_raw(*nested))));
    }
    parsed
}

/// Parses `message` and asserts the full result (`raw` checked separately).
#[track_caller]
pub(super) fn check(message: &str, expected: FailedScheduling) {
    let parsed = parse(message);
    assert_eq!(parsed.raw, message, "raw must keep the input");
    assert_eq!(without_raw(parsed), expected, "message: {message}");
}

// ---- the fixture ----

fn fixture_path() -> PathBuf {
    if let Some(dir) = std::env::var_os("KDRIFT_REAL_FIXTURES") {
        return PathBuf::from(dir).join("failedscheduling.tsv");
    }
    // At run time, so that a binary built from another checkout still reads
    // the fixtures next to the checkout under test.
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string());
    PathBuf::from(manifest).join("../../shared/fixtures/real/failedscheduling.tsv")
}

/// Splits TSV text into rows of fields; a field starting with `"` is quoted and
/// `""` inside it is one `"` (quoted fields may hold tabs and line breaks).
fn read_tsv(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let mut chars = text.chars().peekable();
    let mut at_field_start = true;
    let mut quoted = false;
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    field.push('"');
                    chars.next();
                }
                '"' => quoted = false,
                _ => field.push(c),
            }
            continue;
        }
        match c {
            '"' if at_field_start => {
                quoted = true;
                at_field_start = false;
            }
            '\t' => {
                row.push(std::mem::take(&mut field));
                at_field_start = true;
            }
            '\n' => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
                at_field_start = true;
            }
            '\r' => {}
            _ => {
                field.push(c);
                at_field_start = false;
            }
        }
    }
    if !field.is_empty() || !row.is_empty() {
        row.push(field);
        rows.push(row);
    }
    rows
}

/// The expected parse of each part of each fixture row, by id.
fn expected(id: &str) -> Option<Vec<FailedScheduling>> {
    use PvcProblem::*;
    use Reason::*;
    let not_helpful = PreemptionNotHelpful;
    let no_victims = NoPreemptionVictims;
    let unreachable = || taint("node.kubernetes.io/unreachable", "");
    let parts = match id {
        "FS01" => vec![FailedScheduling {
            form: MessageForm::PredicateList,
            items: vec![rc(9, insufficient("cpu")), rc(15, insufficient("memory")), rc(18, NodeAffinity)],
            ..FailedScheduling::default()
        }],
        "FS03" => {
            let nodes = ["spgr", "jitr", "3qqu", "530e"];
            vec![FailedScheduling {
                form: MessageForm::PerNodeLines,
                items: vec![rc(4, insufficient("cpu"))],
                per_node: nodes
                    .iter()
                    .map(|n| (format!("gke-warpdrive-default-pool-eae1f3b0-{n}"), insufficient("cpu")))
                    .collect(),
                ..FailedScheduling::default()
            }]
        }
        "FS05" => vec![preempt(modern(1, vec![rc(1, insufficient("nvidia.com/gpu"))]), 1, vec![rc(1, no_victims)])],
        "FS07" => vec![preempt(
            modern(4, vec![rc(1, other("NodeUnfitPod")), rc(1, unreachable()), rc(2, other("node unregistered"))]),
            4,
            vec![rc(1, not_helpful.clone()), rc(3, no_victims)],
        )],
        "FS09" => vec![preempt(
            modern(10, vec![rc(3, VolumeNodeAffinity), rc(7, NodeAffinity)]),
            10,
            vec![rc(10, not_helpful)],
        )],
        "FS11" => vec![modern(4, vec![rc(4, pvc(None, Unbound))]), modern(4, vec![rc(4, VolumeNodeAffinity)])],
        "FS13" => vec![modern(5, vec![rc(1, VolumeNodeAffinity), rc(4, NodeAffinity)])],
        "FS15" => vec![preempt(modern(1, vec![rc(1, VolumeNodeAffinity)]), 1, vec![rc(1, not_helpful)])],
        "FS17" => vec![preempt(modern(3, vec![rc(3, pvc(None, Unbound))]), 3, vec![rc(3, not_helpful)])],
        "FS19" => vec![FailedScheduling {
            form: MessageForm::BareReason,
            prefilter: Some(pvc(None, Unbound)),
            ..FailedScheduling::default()
        }],
        "FS21" => vec![preempt(modern(1, vec![rc(1, unreachable())]), 1, vec![rc(1, not_helpful)])],
        "FS23" => vec![preempt(
            FailedScheduling {
                post_filter: vec!["no new claims to deallocate".to_string()],
                ..modern(2, vec![rc(2, any_taint())])
            },
            2,
            vec![rc(2, not_helpful)],
        )],
        "FS25" => vec![modern(5, vec![rc(2, Unschedulable), rc(3, TooManyPods)])],
        "FS27" => vec![modern(1, vec![rc(1, insufficient("gpu.intel.com/i915"))])],
        "FS29" => vec![modern(
            3,
            vec![
                rc(1, ExistingPodsAntiAffinity),
                rc(1, PodAffinityOrAntiAffinity),
                rc(2, other("CheckServiceAffinity")),
            ],
        )],
        "FS31" => vec![modern(1, vec![rc(1, PodAffinityOrAntiAffinity), rc(1, PodAntiAffinity)])],
        "FS33" => vec![modern(3, vec![rc(1, VolumeZone), rc(1, any_taint()), rc(1, NotReady)])],
        "FS35" => vec![modern(1, vec![rc(1, HostPorts)])],
        "FS37" => vec![modern(18, vec![rc(18, insufficient("ephemeral-storage")), rc(3, NodeAffinity)])],
        "FS39" => {
            vec![modern(3, vec![rc(3, pvc(Some("authservice-pvc"), NotFound))]), modern(3, vec![rc(3, VolumeBinding)])]
        }
        "FS41" => vec![
            FailedScheduling {
                form: MessageForm::Bracketed,
                items: vec![rc(3, pvc(Some("data-mysql-0"), Unbound))],
                ..FailedScheduling::default()
            },
            FailedScheduling {
                form: MessageForm::PredicateList,
                items: vec![rc(3, insufficient("cpu"))],
                ..FailedScheduling::default()
            },
        ],
        "FS43" => vec![preempt(
            modern(3, vec![rc(1, taint("node.kubernetes.io/memory-pressure", "")), rc(2, TooManyPods)]),
            3,
            vec![rc(1, not_helpful), rc(2, no_victims)],
        )],
        "FS45" => vec![modern(
            13,
            vec![
                rc(1, TooManyPods),
                rc(1, taint("kubernetes.io/arch", "arm64")),
                rc(1, Unschedulable),
                rc(5, VolumeLimits),
                rc(5, taint("nd.group-name", "kube-system")),
            ],
        )],
        "FS47" => vec![preempt(modern(2, vec![rc(2, VolumeLimits)]), 2, vec![rc(2, no_victims)])],
        "FS49" => vec![modern(2, vec![rc(1, insufficient("cpu")), rc(2, NodeAffinity)])],
        "FS51" => vec![FailedScheduling {
            form: MessageForm::PredicateList,
            items: vec![rc(2, TooManyPods), rc(3, Unschedulable)],
            ..FailedScheduling::default()
        }],
        "FS53" => vec![FailedScheduling { form: MessageForm::SkipDeletingPod, ..FailedScheduling::default() }],
        _ => return None,
    };
    Some(parts)
}

/// Every id that has an expectation above.
const EXPECTED_IDS: [&str; 27] = [
    "FS01", "FS03", "FS05", "FS07", "FS09", "FS11", "FS13", "FS15", "FS17", "FS19", "FS21", "FS23", "FS25", "FS27",
    "FS29", "FS31", "FS33", "FS35", "FS37", "FS39", "FS41", "FS43", "FS45", "FS47", "FS49", "FS51", "FS53",
];

#[test]
#[cfg_attr(kdrift_no_real_fixtures, ignore = "../shared/fixtures/real is absent (a clone elsewhere); CI always has it")]
fn every_fixture_row_parses_as_written_down() {
    let path = fixture_path();
    let Ok(text) = std::fs::read_to_string(&path) else {
        println!("fixture {} is absent: table test skipped", path.display());
        return;
    };
    let rows = read_tsv(&text);
    let header = rows.first().expect("the fixture has a header row");
    assert_eq!(header[..2], ["id", "message"], "unexpected header: {header:?}");

    let mut seen = BTreeSet::new();
    for row in &rows[1..] {
        if row.iter().all(|field| field.trim().is_empty()) {
            continue;
        }
        let (id, message) = (row[0].as_str(), row.get(1).map_or("", String::as_str));
        assert!(seen.insert(id.to_string()), "id {id} appears twice");
        let message = message.replace("\\n", "\n");
        let parts: Vec<&str> = message.split("  ->  ").collect();
        let expected = expected(id).unwrap_or_else(|| panic!("row {id} has no expectation: {message}"));
        assert_eq!(parts.len(), expected.len(), "row {id}: number of pasted messages");
        for (part, want) in parts.into_iter().zip(expected) {
            let parsed = parse(part);
            assert_eq!(parsed.raw, part, "row {id}: raw");
            assert_eq!(without_raw(parsed), want, "row {id}: {part}");
        }
    }
    let written: BTreeSet<String> = EXPECTED_IDS.iter().map(|id| id.to_string()).collect();
    assert_eq!(seen, written, "fixture ids and written-down expectations differ");
}

/// Whether any reason of `parsed` (nested preemption included) is
/// [`Reason::Other`], or the whole message is [`MessageForm::Other`].
fn has_other(parsed: &FailedScheduling) -> bool {
    let nested = match &parsed.preemption {
        Some(Preemption::Nodes(nested)) => has_other(nested),
        _ => false,
    };
    nested
        || parsed.form == MessageForm::Other
        || parsed.reasons().chain(parsed.per_node.iter().map(|(_, r)| r)).any(|r| r.kind() == ReasonKind::Other)
}

/// The rows with an `other` reason when the new grammars came in (HAMi's
/// `NodeUnfitPod` / `node unregistered`, OpenShift's `CheckServiceAffinity`):
/// a grammar change may shrink this set, never grow it.
const ROWS_WITH_OTHER: [&str; 2] = ["FS07", "FS29"];

#[test]
#[cfg_attr(kdrift_no_real_fixtures, ignore = "../shared/fixtures/real is absent (a clone elsewhere); CI always has it")]
fn rows_classified_as_other_do_not_grow() {
    let path = fixture_path();
    let Ok(text) = std::fs::read_to_string(&path) else {
        println!("fixture {} is absent: test skipped", path.display());
        return;
    };
    let rows = read_tsv(&text);
    let mut with_other = BTreeSet::new();
    let mut parsed_parts = 0;
    for row in rows.iter().skip(1).filter(|row| row.len() >= 2) {
        for part in row[1].replace("\\n", "\n").split("  ->  ") {
            parsed_parts += 1;
            if has_other(&parse(part)) {
                with_other.insert(row[0].as_str());
            }
        }
    }
    assert_eq!(parsed_parts, 30, "messages in the fixture (rows, pasted pairs counted twice)");
    let allowed: BTreeSet<&str> = ROWS_WITH_OTHER.into_iter().collect();
    assert!(with_other.is_subset(&allowed), "rows newly classified as other: {:?}", with_other.difference(&allowed));
}

#[test]
fn tsv_reader_handles_quotes() {
    let rows = read_tsv("id\tmessage\n\"a\"\"b\"\t\"x\ty\"\nc\td\n");
    assert_eq!(rows, vec![vec!["id", "message"], vec!["a\"b", "x\ty"], vec!["c", "d"]]);
}
