//! The walk's tests: Lists with bad, cut and twice-keyed items, broken
//! own fields, interrupts.

use super::*;
use crate::parse::{parse_bytes, parse_bytes_until, Naming};

/// A Pod named `p{i}`.
fn pod(i: usize) -> Value {
    serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": format!("p{i}"), "namespace": "d", "uid": format!("u-{i}")},
            "spec": {"containers": [{"name": "c", "image": "x{]\"y"}]}})
}

/// A kubectl List of `n` Pods as `kubectl get -o json` prints it.
fn pretty_list(n: usize) -> String {
    let items: Vec<Value> = (0..n).map(pod).collect();
    let list = serde_json::json!({"apiVersion": "v1", "items": items, "kind": "List",
            "metadata": {"resourceVersion": ""}});
    serde_json::to_string_pretty(&list).expect("json") + "\n"
}

/// The 1-based line of the `{` opening the item holding `needle`.
fn item_line(text: &str, needle: &str) -> u64 {
    let at = text.find(needle).expect("needle");
    let open = text[..at].rfind("\n    {").expect("item") + 1;
    text[..open].matches('\n').count() as u64 + 1
}

fn names(p: &Parsed) -> Vec<(String, Option<u64>)> {
    let name = |r: &crate::store::Record| r.object["metadata"]["name"].as_str().unwrap_or_default().to_string();
    p.records.iter().map(|r| (name(r), r.origin.item)).collect()
}

/// Every item but `skip`, with its own index.
fn all_but(n: usize, skip: &[usize]) -> Vec<(String, Option<u64>)> {
    (0..n).filter(|i| !skip.contains(i)).map(|i| (format!("p{i}"), Some(i as u64))).collect()
}

#[test]
fn a_missing_comma_in_one_item_skips_that_item_only() {
    let text = pretty_list(10).replacen("\"name\": \"p4\",", "\"name\": \"p4\"", 1);
    let line = item_line(&text, "\"p4\"");
    let p = parse_bytes("pods.json", text.as_bytes(), Naming::Json);
    assert_eq!(names(&p), all_but(10, &[4]));
    let comma_line = line_of_offset(text.as_bytes(), text.find("\"p4\"").expect("p4")) + 1;
    let errors: Vec<String> = p.errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        errors,
        [format!(
            "pods.json:{comma_line}:9: items[4]: invalid JSON: expected `,` or `}}` (the item opens at line \
                 {line}); this item is skipped (not stored); the List's other items are loaded"
        )]
    );
}

#[test]
fn invalid_utf8_in_one_item_of_a_one_line_list_skips_that_item_only() {
    let mut bytes = serde_json::to_vec(&serde_json::json!({"kind": "PodList", "items": (0..11).map(pod)
            .collect::<Vec<_>>()}))
    .expect("json");
    let at = bytes.windows(4).position(|w| w == b"\"p6\"").expect("p6") + 2;
    bytes[at] = 0xff;
    let p = parse_bytes("pods.json", &bytes, Naming::Json);
    assert_eq!(names(&p), all_but(11, &[6]));
    assert_eq!(p.errors.len(), 1, "{:?}", p.errors);
    let e = &p.errors[0];
    assert_eq!((e.origin.line, e.origin.item), (Some(1), Some(6)));
    assert!(e.column.is_some_and(|c| c as usize > at), "{e}");
    assert!(e.message.starts_with("invalid JSON: invalid unicode code point; this item is skipped"), "{e}");
    // The same List pretty-printed: the same records, the error on its line, the item's said.
    let mut text = pretty_list(11).into_bytes();
    let at = text.windows(4).position(|w| w == b"\"p6\"").expect("p6") + 2;
    text[at] = 0xff;
    let p = parse_bytes("pods.json", &text, Naming::Json);
    assert_eq!(names(&p), all_but(11, &[6]));
    let line = item_line(&String::from_utf8_lossy(&text), "\"p\u{fffd}\"");
    let at_line = line_of_offset(&text, at);
    assert_eq!((p.errors.len(), p.errors[0].origin.line, p.errors[0].origin.item), (1, Some(at_line), Some(6)));
    assert!(p.errors[0].message.contains(&format!("(the item opens at line {line})")), "{:?}", p.errors);
}

#[test]
fn bad_items_are_reported_in_order_with_those_expand_document_finds() {
    let text = br#"{"kind":"PodList",
"items":[{"metadata":{"name":"p0"}}, tru, {"metadata":{}}, {"metadata":{"name":"p3"} "x": 1}, {"metadata":{"name":"p4"}}]}
{"kind":"Pod","metadata":{"name":"after"}}"#;
    let p = parse_bytes("pods.json", text, Naming::Json);
    assert_eq!(names(&p), [("p0".into(), Some(0)), ("p4".into(), Some(4)), ("after".into(), None)]);
    let items: Vec<Option<u64>> = p.errors.iter().map(|e| e.origin.item).collect();
    assert_eq!(items, [Some(1), Some(2), Some(3)], "{:?}", p.errors);
    assert!(p.errors[1].message.contains("neither metadata.name nor metadata.uid"), "{}", p.errors[1]);
}

#[test]
fn a_bad_last_item_before_the_cut_end_is_reported_with_the_cut() {
    let full = pretty_list(5).replacen("\"name\": \"p3\",", "\"name\": \"p3\"", 1);
    // Cut after item 3 (its `},`): item 3 is bad, the file ends between items.
    let cut = &full[..full.find("\"p4\"").expect("p4")];
    let cut = &cut[..cut.rfind("},").expect("end of item 3") + 2];
    let p = parse_bytes("pods.json", cut.as_bytes(), Naming::Json);
    assert_eq!(names(&p), all_but(4, &[3]));
    let errors: Vec<String> = p.errors.iter().map(ToString::to_string).collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors[0].contains(": items[3]: invalid JSON: expected `,` or `}`"), "{errors:?}");
    assert!(
        errors[1].ends_with(
            "the file ends inside the List's items, after 4 items (truncated?): 3 of them are loaded; any after \
                 them are missing"
        ),
        "{errors:?}"
    );
    // Cut inside the bad item: it has no end; the ones before load.
    let cut = &full[..full.find("\"p3\"").expect("p3") + 10];
    let p = parse_bytes("pods.json", cut.as_bytes(), Naming::Json);
    assert_eq!(names(&p), all_but(3, &[]));
    assert_eq!(p.errors.len(), 1, "{:?}", p.errors);
    // A cut good item is reported as before.
    let cut = &pretty_list(5)[..full.find("\"p3\"").expect("p3") + 10];
    let p = parse_bytes("pods.json", cut.as_bytes(), Naming::Json);
    assert_eq!(names(&p), all_but(3, &[]));
    assert!(p.errors[0].to_string().contains(": items[3]: the file ends inside this item"), "{:?}", p.errors);
}

#[test]
fn a_missing_comma_between_items_is_said_once_and_both_items_load() {
    let text =
        b"{\"kind\":\"PodList\",\n\"items\":[{\"metadata\":{\"name\":\"p0\"}} {\"metadata\":{\"name\":\"p1\"}}]}\n\
                     {\"kind\":\"Pod\",\"metadata\":{\"name\":\"after\"}}\n";
    let p = parse_bytes("pods.json", text, Naming::Json);
    assert_eq!(names(&p), [("p0".into(), Some(0)), ("p1".into(), Some(1)), ("after".into(), None)]);
    let errors: Vec<String> = p.errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        errors,
        ["pods.json:2:37: items[1]: invalid JSON: a `,` is missing between items[0] and items[1]; read as if it \
              were there (both items are loaded)"]
    );
}

#[test]
fn a_broken_list_keeps_the_items_before_the_break() {
    let text =
        b"{\"kind\":\"PodList\",\n\"items\":[{\"metadata\":{\"name\":\"p0\"}}} {\"metadata\":{\"name\":\"p1\"}}]}\n\
                     {\"kind\":\"Pod\",\"metadata\":{\"name\":\"after\"}}\n";
    let p = parse_bytes("pods.json", text, Naming::Json);
    assert_eq!(names(&p), [("p0".into(), Some(0)), ("after".into(), None)]);
    let errors: Vec<String> = p.errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        errors,
        ["pods.json:2:36: invalid JSON: expected `,` or `]` after the List's items[0]; the items before are \
              loaded, the rest of this document is not read"]
    );
}

#[test]
fn an_interrupt_stops_a_long_list_within_a_few_mb() {
    let items: Vec<Value> = (0..60_000).map(pod).collect();
    let bytes = serde_json::to_vec(&serde_json::json!({"kind": "PodList", "items": &items})).expect("json");
    assert!(bytes.len() > 2 * CHECK_EVERY, "{}", bytes.len());
    let interrupt = Interrupt::new();
    interrupt.trigger();
    let p = parse_bytes_until("pods.json", &bytes, Naming::Json, &interrupt);
    assert!(p.records.is_empty());
    assert_eq!(p.errors.len(), 1, "{:?}", p.errors);
    let e = &p.errors[0];
    assert_eq!(e.message, STOPPED);
    // Stopped at once, at the List's first value (`kind`): every value's
    // parse looks at the interrupt (break-it 41 G4); it was at the
    // first look of the walk, once 4 MiB were read.
    assert_eq!((e.origin.line, e.origin.item), (Some(1), None));
    // Not triggered: every item.
    assert_eq!(parse_bytes("pods.json", &bytes, Naming::Json).records.len(), 60_000);
}

/// Break-it F7: an item whose string has lost its closing quote took
/// the items after it along (the scan for its end read them as inside
/// strings). Pretty-printed, the string ends at its line's end (JSON
/// strings hold no raw newline); on one line, the walk resyncs at the
/// next item that parses as one of the List's kind.
#[test]
fn an_item_with_an_unclosed_string_skips_that_item_only() {
    let text = pretty_list(10).replacen("\"name\": \"p4\",", "\"name\": \"p4,", 1);
    let line = item_line(&text, "\"p4,");
    let p = parse_bytes("pods.json", text.as_bytes(), Naming::Json);
    assert_eq!(names(&p), all_but(10, &[4]));
    assert_eq!(p.records.len(), 9);
    let errors: Vec<String> = p.errors.iter().map(ToString::to_string).collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    // At the line the string breaks on (break-it 41 L5), the item's line said.
    let broken = line_of_offset(text.as_bytes(), text.find("\"p4,").expect("p4"));
    assert!(
        errors[0].starts_with(&format!("pods.json:{broken}:"))
            && errors[0].contains(": items[4]: invalid JSON: control character")
            && errors[0].ends_with(&format!(
                "(the item opens at line {line}); this item is skipped (not stored); the List's other items are \
                     loaded"
            )),
        "{errors:?}"
    );
    // One line: `"p4}},{"…` reads on into items[5] as a string.
    let list = serde_json::json!({"kind": "PodList", "items": (0..11).map(pod).collect::<Vec<_>>()});
    for at in ["\"p4\"", "\"u-4\"", "\"p10\""] {
        let text = serde_json::to_string(&list).expect("json");
        let cut = text.find(at).expect(at) + at.len() - 1;
        let text =
            format!("{}{}\n{{\"kind\":\"Pod\",\"metadata\":{{\"name\":\"after\"}}}}\n", &text[..cut], &text[cut + 1..]);
        let p = parse_bytes("pods.json", text.as_bytes(), Naming::Json);
        let bad = if at == "\"p10\"" { 10 } else { 4 };
        let mut want = all_but(11, &[bad]);
        want.push(("after".into(), None));
        assert_eq!(names(&p), want, "{at}: {:?}", p.errors);
        let items: Vec<(Option<u64>, Option<u64>)> = p.errors.iter().map(|e| (e.origin.line, e.origin.item)).collect();
        if bad == 4 {
            assert_eq!(items, [(Some(1), Some(4))], "{at}: {:?}", p.errors);
        } else {
            // The last item: no next item to resync at, the List's end
            // is not found either (said too); the document after loads.
            assert_eq!(items, [(Some(1), Some(10)), (Some(1), None)], "{at}: {:?}", p.errors);
            assert!(p.errors[1].message.starts_with("invalid JSON: expected `,` or `]` after the List's items[10]"));
        }
    }
}

/// One huge object that is no List (a Pod with 300,000 annotations,
/// ~10 MiB): SIGINT stopped it only once its whole `metadata` was
/// parsed; it stops at once, at the first value read (break-it 41 G4:
/// every value's parse looks at the interrupt; it was at `metadata`).
#[test]
fn an_interrupt_stops_inside_one_huge_object() {
    let annotations: serde_json::Map<String, Value> =
        (0..300_000).map(|i| (format!("example.com/a{i}"), Value::String("v".repeat(16)))).collect();
    let metadata =
        serde_json::to_string_pretty(&serde_json::json!({"name": "big", "annotations": annotations})).expect("json");
    let text = format!("{{\"apiVersion\": \"v1\", \"kind\": \"Pod\",\n\"metadata\": {metadata},\n\"spec\": {{}}}}\n");
    assert!(text.len() > 2 * CHECK_EVERY, "{}", text.len());
    let interrupt = Interrupt::new();
    interrupt.trigger();
    let p = parse_bytes_until("pod.json", text.as_bytes(), Naming::Json, &interrupt);
    assert!(p.records.is_empty());
    let errors: Vec<(Option<u64>, &str)> = p.errors.iter().map(|e| (e.origin.line, e.message.as_str())).collect();
    assert_eq!(errors, [(Some(1), STOPPED)]);
    // Not triggered: the object, whole.
    let p = parse_bytes("pod.json", text.as_bytes(), Naming::Json);
    assert_eq!((p.records.len(), p.errors.len()), (1, 0));
    assert_eq!(p.records[0].object["metadata"]["annotations"].as_object().map(serde_json::Map::len), Some(300_000));
}

#[test]
fn a_key_twice_in_a_document_or_a_one_line_list_is_its_error() {
    let text = b"{\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\"},\"kind\":\"Pod\"}\n";
    let p = parse_bytes("x.json", text, Naming::Json);
    assert_eq!(p.records.len(), 0);
    assert!(p.errors[0].message.contains("the key \"kind\" appears twice"), "{:?}", p.errors);
    let list = b"{\"kind\":\"List\",\"items\":[{\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\"}}],\"items\":[]}\n{\"kind\":\"Node\",\"metadata\":{\"name\":\"n2\"}}\n";
    let p = parse_bytes("x.ndjson", list, Naming::Json);
    // Issue 34: the first array's Node loads too (it was lost).
    assert_eq!(p.records.len(), 2, "{:?}", p.errors);
    let errors: Vec<String> = p.errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        errors,
        ["x.ndjson:1:67: the key \"items\" appears twice in the List; expected one: a List has one `items` \
              array; the items of both are loaded, the second's numbered on from items[1]"]
    );
    // A second `items` that is no array: left out, the first's items load.
    let list = b"{\"kind\":\"List\",\"items\":[{\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\"}}],\"items\":{}}";
    let p = parse_bytes("x.json", list, Naming::Json);
    assert_eq!(p.records.len(), 1, "{:?}", p.errors);
    assert_eq!(p.errors.len(), 1, "{:?}", p.errors);
    assert!(p.errors[0].message.ends_with("this second one is no array: it is left out, the first's items are loaded"));
}

/// Break-it 39: a List of 2,000,000 `{}` held every item's error (1.16
/// GB). The first 100 errors in item order are kept, of bad JSON and
/// of objects without a kind alike, and the others are counted.
#[test]
fn a_lists_errors_past_the_first_100_are_counted_not_kept() {
    // Items 0..3000: every third is bad JSON, the others `{}` but each 10th a Pod.
    let items: Vec<String> = (0..3000)
        .map(|i| match i {
            i if i % 3 == 0 => "tru".to_string(),
            i if i % 10 == 1 => pod(i).to_string(),
            _ => "{}".to_string(),
        })
        .collect();
    let text = format!("{{\"kind\":\"List\",\"items\":[{}]}}", items.join(",\n"));
    let p = parse_bytes("x.json", text.as_bytes(), Naming::Json);
    let pods = (0..3000).filter(|i| i % 3 != 0 && i % 10 == 1).count();
    assert_eq!(p.records.len(), pods);
    assert_eq!((p.errors.len(), p.errors_not_kept), (100, 3000 - pods as u64 - 100));
    let kept: Vec<u64> = p.errors.iter().filter_map(|e| e.origin.item).collect();
    let want: Vec<u64> = (0..3000u64).filter(|i| i % 3 == 0 || i % 10 != 1).take(100).collect();
    assert_eq!(kept, want);
}

/// Break-it 31 F6: a key twice in the List's own `metadata` lost all
/// its items (0 of 10); in a bare array, a key twice in one item did.
#[test]
fn a_key_twice_outside_the_items_or_in_a_bare_arrays_item_keeps_the_items() {
    let list = pretty_list(10).replacen("\"resourceVersion\": \"\"", "\"a\": 1, \"a\": 2", 1);
    let p = parse_bytes("pods.json", list.as_bytes(), Naming::Json);
    assert_eq!(names(&p), all_but(10, &[]));
    let errors: Vec<String> = p.errors.iter().map(ToString::to_string).collect();
    // At the `{` of the List's `metadata` (its last key).
    let line = line_of_offset(list.as_bytes(), list.rfind("\"metadata\": {").expect("metadata"));
    assert_eq!(
        errors,
        [format!(
            "pods.json:{line}:15: the key \"a\" appears twice in one object (at metadata.a; which value is meant \
                 is unknown); the List's value of `metadata` is read with the last of them, its items are loaded"
        )]
    );
    // An object that is no List: one error, as before.
    let p = parse_bytes("pod.json", br#"{"kind":"Pod","metadata":{"name":"a","name":"b"}}"#, Naming::Json);
    assert_eq!((p.records.len(), p.errors.len()), (0, 1));
    let items: Vec<Value> = (0..10).map(pod).collect();
    let mut array = serde_json::to_string(&items).expect("json");
    array = array.replacen("\"name\":\"p5\"", "\"name\":\"p5\",\"name\":\"p5b\"", 1);
    let p = parse_bytes("pods.json", array.as_bytes(), Naming::Json);
    assert_eq!(names(&p), all_but(10, &[5]));
    let errors: Vec<String> = p.errors.iter().map(ToString::to_string).collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with("pods.json:1:")
            && errors[0]
                .contains(": items[5]: invalid JSON: the key \"name\" appears twice in one object (at metadata.name;"),
        "{errors:?}"
    );
}

/// Break-it 33 F3: a key twice at a List's top level (`kind`,
/// `apiVersion`, `metadata`) or an extra top-level field nested 300
/// deep lost all 10 items: they load, the top level is one error.
#[test]
fn a_bad_top_level_field_of_a_list_keeps_its_items() {
    let items: Vec<Value> = (0..10).map(pod).collect();
    let items = serde_json::to_string(&items).expect("json");
    for (top, column, what) in [
        ("\"apiVersion\":\"v1\",\"kind\":\"List\",\"kind\":\"List\"", 34, "kind"),
        ("\"apiVersion\":\"v1\",\"apiVersion\":\"v1\",\"kind\":\"List\"", 20, "apiVersion"),
        ("\"kind\":\"List\",\"metadata\":{},\"metadata\":{}", 30, "metadata"),
    ] {
        let text = format!("{{{top},\"items\":{items}}}\n");
        let p = parse_bytes("pods.json", text.as_bytes(), Naming::Json);
        assert_eq!(names(&p), all_but(10, &[]), "{:?}", p.errors);
        let errors: Vec<String> = p.errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            errors,
            [format!(
                "pods.json:1:{column}: the key \"{what}\" appears twice in one object (at {what}; which value is \
                     meant is unknown); the List is read with the last of them, its items are loaded"
            )]
        );
    }
    let deep = format!("{}{}", "[".repeat(300), "]".repeat(300));
    let text = format!("{{\"apiVersion\":\"v1\",\"kind\":\"List\",\"x\":{deep},\"items\":{items}}}\n");
    let p = parse_bytes("pods.json", text.as_bytes(), Naming::Json);
    assert_eq!(names(&p), all_but(10, &[]), "{:?}", p.errors);
    let errors: Vec<String> = p.errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        errors,
        ["pods.json:1:38: invalid JSON: the List's value of `x` is nested too deep to read (recursion limit \
              exceeded); it is left out, its items are loaded"]
    );
    // After the items too.
    let text = format!("{{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":{items},\"x\":{deep}}}\n");
    let p = parse_bytes("pods.json", text.as_bytes(), Naming::Json);
    assert_eq!(names(&p), all_but(10, &[]), "{:?}", p.errors);
    assert_eq!(p.errors.len(), 1, "{:?}", p.errors);
    // A document that is no List: one error, as before.
    let p = parse_bytes("pod.json", br#"{"kind":"Pod","kind":"Pod","metadata":{"name":"a"}}"#, Naming::Json);
    assert_eq!((p.records.len(), p.errors.len()), (0, 1));
}

/// Break-it 42 H1: a List whose own fields break the syntax keeps its
/// items, and a document after it is read: after the List's `}` when
/// its brackets pair, else from the next `{` in column 0 past the items.
#[test]
fn a_list_with_broken_own_fields_keeps_its_items_and_the_document_after_it() {
    let after = serde_json::to_string(&pod(9)).expect("json") + "\n";
    let ok = pretty_list(3);
    let want = [all_but(3, &[]), vec![("p9".to_string(), None)]].concat();
    for (from, to) in [
        ("\"resourceVersion\": \"\"", "\"resourceVersion\" \"\""),
        ("\"apiVersion\": \"v1\",\n  \"items\"", "\"apiVersion\": \"v1\"\n  \"items\""),
        ("\"resourceVersion\": \"\"\n  }\n}", "\"resourceVersion\": \"\"\n  }"),
        ("\"kind\": \"List\",", "\"kind\": \"List\"\n{\"x\": 1},"),
    ] {
        assert_eq!(ok.matches(from).count(), 1, "{from}");
        let text = ok.replace(from, to) + &after;
        let p = parse_bytes("pods.json", text.as_bytes(), Naming::Json);
        assert_eq!(names(&p), want, "{to}: {:?}", p.errors);
        assert_eq!(p.errors.len(), 1, "{to}: {:?}", p.errors);
        assert!(p.errors[0].message.contains("in the List's own fields (outside its items)"), "{:?}", p.errors);
    }
    // A document that is no List: one error, as before.
    let p = parse_bytes("pod.json", br#"{"kind":"Pod","metadata":{"name" "a"}}"#, Naming::Json);
    assert_eq!((p.records.len(), p.errors.len()), (0, 1));
}
