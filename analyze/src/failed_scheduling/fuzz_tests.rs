//! No input may panic: property tests over arbitrary text, arbitrary bytes and
//! shuffled grammar fragments, plus the edge cases named in the brief.

use proptest::prelude::*;

use super::tests::{insufficient, modern, pvc, rc};
use super::*;

/// Pieces of every era's grammar, so random joins reach the deep paths.
const FRAGMENTS: [&str; 42] = [
    " nodes are unavailable",
    "all nodes are unavailable: ",
    "plugin NodeAffinity predicates failed ",
    " pre-predicates failed ",
    "failed to find fit for pod: ",
    "Error scheduling: ",
    "&{{ } {",
    "}Node ",
    "n1: PodFitsResources",
    ",MatchNodeSelector",
    "no nodes available to schedule pods",
    "\" not found, which is unexpected.",
    "0/",
    "3",
    "99999999999",
    "/",
    " nodes are available",
    ":",
    ": ",
    ".",
    "..",
    " ",
    ", ",
    "Insufficient ",
    "cpu",
    "node(s) had taint {",
    "k: v",
    "}, that the pod didn't tolerate",
    "preemption: ",
    "No nodes are available that match all of the predicates: ",
    " (",
    ")",
    "pod (x) failed to fit in any node",
    "\n",
    "fit failure on node (",
    "): ",
    "[SchedulerPredicates failed due to ",
    ", which is unexpected.",
    "]",
    "persistentvolumeclaim \"",
    "\"",
    " ...",
];

fn assert_sane(message: &str) {
    let parsed = parse(message);
    assert_eq!(parsed.raw, message);
    for reason in parsed.reasons() {
        let _ = (reason.message(), reason.kind(), reason.preemption_can_help());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(message in any::<String>()) {
        assert_sane(&message);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        assert_sane(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn grammar_fragments_never_panic(
        picks in proptest::collection::vec(0..FRAGMENTS.len(), 0..40),
        noise in "[\\PC\u{e9}\u{1F600}]{0,3}",
    ) {
        let mut message: String = picks.iter().map(|&i| FRAGMENTS[i]).collect();
        message.push_str(&noise);
        assert_sane(&message);
        assert_sane(&format!("0/5 nodes are available: 1 {message}"));
        assert_sane(&format!("0/5 nodes are unavailable: 1 plugin X predicates failed {message}"));
        assert_sane(&format!("failed to find fit for pod: &{{{message}}}Node n1: {message}"));
    }

    #[test]
    fn counted_items_round_trip(counts in proptest::collection::vec(0u32..100_000, 1..8)) {
        let items: Vec<_> = counts.iter().map(|&c| rc(c, insufficient("cpu"))).collect();
        let text: Vec<String> = items.iter().map(ToString::to_string).collect();
        let parsed = parse(&format!("0/9 nodes are available: {}.", text.join(", ")));
        prop_assert_eq!(parsed.items, items);
    }
}

/// Reasons whose wording reads back to themselves, for generated Volcano items.
fn known_reason(index: usize) -> Reason {
    let reasons = [
        insufficient("cpu"),
        Reason::TooManyPods,
        Reason::ResourceFit,
        Reason::NodeAffinity,
        Reason::PodAffinity,
        Reason::HostPorts,
        Reason::Unschedulable,
        Reason::UntoleratedTaint { key: Some("k".into()), value: Some("v".into()) },
        pvc(Some("a. b, 2 c"), PvcProblem::NotFound),
    ];
    reasons[index % reasons.len()].clone()
}

/// The 2015 predicate names and what they read as.
const PREDICATES: [(&str, Reason); 5] = [
    ("PodFitsResources", Reason::ResourceFit),
    ("PodFitsHostPorts", Reason::HostPorts),
    ("MatchNodeSelector", Reason::NodeAffinity),
    ("NoDiskConflict", Reason::VolumeRestrictions),
    ("HostName", Reason::NodeName),
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    #[test]
    fn volcano_items_round_trip(
        items in proptest::collection::vec((0u32..10_000, 0usize..9, proptest::option::of("[A-Z][A-Za-z]{0,12}")), 1..8),
    ) {
        let text: Vec<String> = items
            .iter()
            .map(|(count, reason, plugin)| match plugin {
                Some(name) => format!("{count} plugin {name} predicates failed {}", known_reason(*reason)),
                None => format!("{count} {}", known_reason(*reason)),
            })
            .collect();
        let parsed = parse(&format!("0/{} nodes are unavailable: {}.", items.len(), text.join(", ")));
        let want: Vec<ReasonCount> = items.iter().map(|(count, reason, _)| rc(*count, known_reason(*reason))).collect();
        prop_assert_eq!(parsed.form, MessageForm::Volcano);
        prop_assert_eq!(parsed.items, want);
    }

    #[test]
    fn find_fit_node_lines_round_trip(
        nodes in proptest::collection::vec(("[a-z0-9][a-z0-9.-]{0,15}", proptest::collection::vec(0usize..5, 1..4)), 1..6),
        pod in "[a-zA-Z0-9 :/.<>\\[\\]{}-]{0,60}",
        separator in prop_oneof![Just(": &{"), Just(": {"), Just(", ")],
    ) {
        let lines: String = nodes
            .iter()
            .map(|(node, preds)| {
                let names: Vec<&str> = preds.iter().map(|&p| PREDICATES[p].0).collect();
                format!("Node {node}: {}", names.join(","))
            })
            .collect();
        let body = if separator == ", " { String::new() } else { format!("{pod}}}") };
        let parsed = parse(&format!("failed to find fit for pod{separator}{body}{lines}"));
        let want: Vec<(String, Reason)> = nodes
            .iter()
            .flat_map(|(node, preds)| preds.iter().map(move |&p| (node.clone(), PREDICATES[p].1.clone())))
            .collect();
        prop_assert_eq!(parsed.form, MessageForm::FindFit);
        prop_assert_eq!(parsed.per_node, want);
        prop_assert_eq!(parsed.items.iter().map(|i| i.count as usize).sum::<usize>(), nodes.iter().map(|(_, p)| p.len()).sum::<usize>());
    }

    #[test]
    fn quoted_claim_names_never_split(
        name in "[a-z0-9.,:()-]{1,6}( [a-z0-9.,:()-]{1,6}){0,2}",
        count in 1u32..50,
        form in 0usize..5,
    ) {
        let claim = pvc(Some(&name), PvcProblem::NotFound);
        let text = format!("persistentvolumeclaim \"{name}\" not found");
        let parsed = match form {
            0 => parse(&format!("0/{count} nodes are available: {count} {text}, 1 Insufficient cpu.")),
            1 => parse(&format!("0/{count} nodes are available: {text}. preemption: 0/{count} nodes are available: {count} Preemption is not helpful for scheduling..")),
            2 => parse(&format!("No nodes are available that match all of the following predicates:: {text} ({count}), Insufficient cpu (1).")),
            3 => parse(&format!("[SchedulerPredicates failed due to {text}, which is unexpected., SchedulerPredicates failed due to Insufficient cpu, which is unexpected.]")),
            _ => parse(&format!("0/{count} nodes are unavailable: {count} {text}, which is unexpected, 1 Insufficient cpu.")),
        };
        let first = parsed.prefilter.clone().or_else(|| parsed.items.first().map(|i| i.reason.clone()));
        prop_assert_eq!(first, Some(claim), "{:?}", parsed);
        if form == 1 {
            prop_assert!(matches!(parsed.preemption, Some(Preemption::Nodes(_))), "{:?}", parsed);
        } else {
            prop_assert_eq!(parsed.items.last().map(|i| i.reason.clone()), Some(insufficient("cpu")));
        }
    }
}

#[test]
fn edge_cases() {
    for message in [
        "",
        " ",
        "\n\n",
        "...",
        " ...",
        "0/",
        "0/3",
        "0/3 nodes are available",
        "0/3 nodes are available:",
        "0/3 nodes are available: ",
        "0/3 nodes are available: .",
        "0/3 nodes are available: preemption: ",
        "0/3 nodes are available: 3 ",
        "0/3 nodes are available: 3",
        "No nodes are available that match all of the predicates:",
        "No nodes are available that match all of the predicates: (1), x (, y ()), z (99999999999).",
        "pod (x) failed to fit in any node",
        "pod (x) failed to fit in any node\nfit failure on node (n",
        "[",
        "[]",
        "[SchedulerPredicates failed due to ",
        "[SchedulerPredicates failed due to x, which is unexpected.,, ,]",
        "(combined from similar events):",
        "0/3 nodes are available: 1 node(s) had taint {",
        "0/3 nodes are available: 1 node(s) had untolerated taint {}",
        "0/3 nodes are available: 1 persistentvolumeclaim \"",
        "0/٣ nodes are available: ٣ Insufficient cpu.",
        "0/3 nodes are available: 1 Insufficient ç☃, 2 ノード(s) didn't match 😀.",
        "0/3 nodes are unavailable",
        "0/3 nodes are unavailable: ",
        "0/3 nodes are unavailable: 1 plugin ",
        "0/3 nodes are unavailable: 1 plugin X predicates failed",
        "0/3 nodes are unavailable: x, 2",
        "all nodes are unavailable",
        "failed to find fit for pod",
        "failed to find fit for pod:",
        "failed to find fit for pod: Node ",
        "failed to find fit for pod: Node : ",
        "failed to find fit for pod: }Node n: ,,",
        "failed to find fit for podx",
        "Error scheduling:",
        "\"",
        "0/3 nodes are available: 1 persistentvolumeclaim \"a, 2 b. preemption: c",
        "[SchedulerPredicates failed due to \", which is unexpected.\"",
    ] {
        assert_sane(message);
    }
}

#[test]
fn only_the_prefix() {
    check_empty("0/3 nodes are available:");
    check_empty("0/3 nodes are available: .");
    check_empty("0/3 nodes are available");
}

fn check_empty(message: &str) {
    let parsed = parse(message);
    assert_eq!((parsed.form, parsed.total_nodes), (MessageForm::Modern, Some(3)), "{message}");
    assert!(parsed.items.is_empty() && parsed.prefilter.is_none(), "{message}: {parsed:?}");
}

#[test]
fn huge_numbers_saturate() {
    let parsed = parse("0/99999999999999999999 nodes are available: 123456789012345 Insufficient cpu.");
    assert_eq!(parsed.total_nodes, Some(u32::MAX));
    assert_eq!(parsed.items, vec![rc(u32::MAX, insufficient("cpu"))]);
}

#[test]
fn unicode_is_kept_verbatim() {
    let parsed = parse("0/2 nodes are available: 2 ノードが足りません ☃.");
    assert_eq!(parsed.items, vec![rc(2, Reason::Other("ノードが足りません ☃".to_string()))]);
    assert_eq!(
        parse("0/1 nodes are available: 1 Insufficient example.com/ğpu.").items,
        vec![rc(1, insufficient("example.com/ğpu"))]
    );
}

#[test]
fn deep_preemption_nesting_is_bounded() {
    let message = "0/1 nodes are available: preemption: ".repeat(50_000) + "0/1 nodes are available: 1 Too many pods.";
    let parsed = parse(&message);
    let mut depth = 0;
    let mut level = &parsed;
    while let Some(Preemption::Nodes(nested)) = &level.preemption {
        depth += 1;
        level = nested;
    }
    assert!(depth <= 4, "depth {depth}");
    assert!(matches!(level.preemption, Some(Preemption::Text(_))));
}

#[test]
fn long_inputs_stay_linear_enough() {
    let items = vec!["1 Insufficient cpu"; 50_000].join(", ");
    let parsed = parse(&format!("0/50000 nodes are available: {items}."));
    assert_eq!(parsed.items.len(), 50_000);
    let bracketed = vec!["SchedulerPredicates failed due to x, which is unexpected."; 50_000].join(", ");
    assert_eq!(parse(&format!("[{bracketed}]")).items, vec![rc(50_000, Reason::Other("x".into()))]);
    let volcano =
        vec!["1 plugin NodeAffinity predicates failed node(s) didn't match Pod's node affinity/selector"; 50_000];
    assert_eq!(parse(&format!("0/50000 nodes are unavailable: {}.", volcano.join(", "))).items.len(), 50_000);
    let lines = "Node n: PodFitsResources,HostName".repeat(50_000);
    let parsed = parse(&format!("failed to find fit for pod: &{{{}}}{lines}", "Node x: {".repeat(50_000)));
    assert_eq!((parsed.per_node.len(), parsed.items.len()), (100_000, 2));
}

#[test]
fn result_serialises() {
    let parsed = parse("0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.");
    let json = serde_json::to_value(&parsed).expect("serialises");
    assert_eq!(json["items"][0]["reason"]["insufficient"]["resource"], "cpu");
    assert_eq!(json["preemption"]["nodes"]["items"][0]["reason"], "preemption_not_helpful");
    assert_eq!(modern(1, vec![]).form, MessageForm::Modern);
}

#[test]
fn unparsable_predicate_lists_stay_linear() {
    let body = "a), ".repeat(200_000);
    let parsed = parse(&format!("No nodes are available that match all of the predicates: {body}b (1)."));
    assert_eq!(parsed.items.len(), 1);
    assert_eq!(parsed.items[0].count, 1);
}
