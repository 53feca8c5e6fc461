//! A YAML List whose document does not parse because of one item (a
//! quote left open, a bad indentation inside item 5): each item is parsed
//! on its own (the `- ` lines of the top-level `items:` sequence,
//! [`super::cut::item_starts`]), the bad ones are reported as `items[i]`
//! at the line they start on with the parser's words, and the others load
//! with their own index, as a bad NDJSON line or YAML document is skipped.
//! The same split serves a List one item of which nests deeper than the
//! YAML depth cap ([`super::depth::MAX_YAML_DEPTH`]): the cap applies per
//! item, so that item is skipped with an error naming it and the limit
//! (break-it 32 N6: one deep item lost all 10). The YAML stream
//! (`crate::yaml_stream`) reads every large List this way, good or not:
//! its own fields ([`list_fields`]), then each item alone ([`parse_item`]).
//! A List whose `items:` key appears twice loads the items of both
//! sequences, the second's numbered on, with one error at the second key
//! (kdrift issue 34, break-it 41 G5: none loaded; as JSON reads it).

use serde::Deserialize;
use serde_json::Value;

use super::cut::item_starts;
use super::depth;
use super::walk::expand_items;
use super::{is_list, legacy, shift_line_numbers, InputError, Parsed};
use crate::store::Origin;

/// Recovers the YAML document `doc_text` (its first line is `origin`'s)
/// that does not parse: when the text around its `items:` sequence parses
/// alone, and at least one of its items does not, the good items load and
/// each bad one is an error. Returns false, adding nothing, otherwise (the
/// caller reports the document as one error). An item nesting deeper than
/// `max_depth` is not parsed but reported; the text around the items must
/// be within it.
pub(super) fn recover_yaml_items(
    doc_text: &str,
    origin: &Origin,
    hint: Option<&str>,
    max_depth: usize,
    out: &mut Parsed,
) -> bool {
    let lines: Vec<&str> = doc_text.split_inclusive('\n').collect();
    let Some(blocks) = item_blocks(doc_text, &lines) else { return false };
    // The List's own fields: its text without the items, nor a second `items:` key.
    let mut around = String::new();
    let mut from = 0;
    let mut removed = Vec::new();
    for b in &blocks {
        let cut = b.key.unwrap_or(b.starts[0]);
        around.push_str(&lines[from..cut].concat());
        removed.push((cut, b.end));
        from = b.end;
    }
    around.push_str(&lines[from..].concat());
    let Some((mut doc, top)) = list_fields(&around, &removed, origin, max_depth) else { return false };
    let first_line = origin.line.unwrap_or(1);
    let (mut good, mut index, mut bad, mut twice, mut starts) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for b in &blocks {
        if let Some(key) = b.key {
            // Kdrift issue 34 (break-it 41 G5): read on as JSON's `walk` does.
            twice.push(InputError {
                origin: Origin { line: Some(first_line + key as u64), item: None, ..origin.clone() },
                column: None,
                message: super::items_twice_message("items", starts.len() as u64, true),
            });
        }
        for (j, &at) in b.starts.iter().enumerate() {
            let k = starts.len() as u64;
            starts.push(at);
            let upto = b.starts.get(j + 1).copied().unwrap_or(b.end);
            let text = lines[at..upto].concat();
            match parse_item(&text, at, k, origin, max_depth) {
                Item::Good(item) => {
                    good.push(item);
                    index.push(k);
                }
                Item::Bad(e) => bad.push(e),
                Item::NotOne => return false,
            }
        }
    }
    if bad.is_empty() && top.is_none() && twice.is_empty() {
        return false;
    }
    if let Some(m) = doc.as_object_mut() {
        m.insert("items".into(), Value::Array(good));
    }
    if !legacy::is_legacy(&doc) && !is_list(&doc) {
        return false;
    }
    out.errors.extend(top);
    out.errors.extend(twice);
    let before = (out.records.len(), out.errors.len());
    expand_items(doc, origin.clone(), hint, &index, bad, out);
    super::set_item_lines(out, before, |k| starts.get(k as usize).map(|at| first_line + *at as u64));
    true
}

/// One top-level `items:` sequence of a YAML List's document, in 0-based
/// lines of it.
struct Block {
    /// The line of its `items:` key, when it is not the first such key
    /// (a second `items:` sequence: kdrift issue 34).
    key: Option<usize>,
    /// The lines its items start on (at least one).
    starts: Vec<usize>,
    /// The first line after its items.
    end: usize,
}

/// The top-level `items:` sequences of `doc_text` (split in `lines`): the
/// first ([`super::cut::item_starts`]), then each later unindented
/// `items:` line followed by items, as a List whose `items` key appears
/// twice is read in JSON (`walk`). `None` when the first has no items.
fn item_blocks(doc_text: &str, lines: &[&str]) -> Option<Vec<Block>> {
    let starts = item_starts(doc_text);
    let first = *starts.first()?;
    // The items end at the first unindented line after them that is not an item.
    let end = (first..lines.len()).find(|&i| ends_items(lines[i])).unwrap_or(lines.len());
    let mut blocks = vec![Block { key: None, starts, end }];
    let mut from = end;
    while let Some(key) = (from..lines.len()).find(|&i| is_items_key(lines[i])) {
        let starts: Vec<usize> = item_starts(&lines[key..].concat()).iter().map(|at| at + key).collect();
        let Some(&first) = starts.first() else { break };
        let end = (first..lines.len()).find(|&i| ends_items(lines[i])).unwrap_or(lines.len());
        blocks.push(Block { key: Some(key), starts, end });
        from = end;
    }
    Some(blocks)
}

/// Whether `line` is an unindented `items:` key with nothing after it.
fn is_items_key(line: &str) -> bool {
    line.strip_prefix("items:").is_some_and(|rest| rest.trim().is_empty())
}

/// Whether `line`, met after the first item of a List's top-level `items:`
/// sequence, ends the items: an unindented line that is not blank, a
/// comment or a `-` line (the List's fields after its items, `kind: List`).
pub(crate) fn ends_items(line: &str) -> bool {
    !line.starts_with([' ', '\t', '-', '#', '\n', '\r']) && !line.trim().is_empty()
}

/// A YAML List's own fields parsed: `around` is the List's document
/// without its items, which took its 0-based lines `removed` (each range
/// `from` to `to`, excluded, in order: the items, or a second `items:` key
/// and its items); the document's first line is `origin`'s. Gives the List
/// (with `items: null`) and the error of a key twice in its fields, which
/// are then read with the last value (break-it 33 F3); `None` when they
/// nest deeper than `max_depth`, do not parse, or `items` is not null in
/// them (a second `items` key holding a value).
pub(crate) fn list_fields(
    around: &str,
    removed: &[(usize, usize)],
    origin: &Origin,
    max_depth: usize,
) -> Option<(Value, Option<InputError>)> {
    if depth::too_deep(around, max_depth).is_some() {
        return None;
    }
    let noted = kdrift_rebalance::NotedValue::deserialize(serde_yaml::Deserializer::from_str(around)).ok()?;
    let doc = noted.value;
    if !matches!(doc.get("items"), Some(Value::Null)) {
        return None;
    }
    let first_line = origin.line.unwrap_or(1);
    // A key twice in the List's own fields (`resourceVersion` twice in its
    // `metadata`): one error naming the first, its items are loaded
    // (break-it 33 F3), as in JSON (`walk`).
    let top = noted.duplicates.first().map(|d| {
        let at = super::strict::Strict::deserialize(serde_yaml::Deserializer::from_str(around))
            .err()
            .and_then(|e| e.location())
            .map(|l| {
                // Back to the document's 0-based lines, past each range taken out.
                let mut line = l.line().saturating_sub(1);
                for &(from, to) in removed {
                    if line >= from {
                        line += to - from;
                    }
                }
                (first_line + line as u64, l.column() as u64)
            });
        let field = d.path.split(['.', '[']).next().unwrap_or_default();
        let then = if field == d.path {
            "the List is read with the last of them".to_string()
        } else {
            format!("the List's value of `{field}` is read with the last of them")
        };
        InputError {
            origin: Origin { line: at.map(|a| a.0).or(origin.line), item: None, ..origin.clone() },
            column: at.map(|a| a.1),
            message: format!("{}; {then}, its items are loaded", kdrift_rebalance::duplicate_message(&d.key, &d.path)),
        }
    });
    Some((doc, top))
}

/// One item of a YAML List read alone.
pub(crate) enum Item {
    /// The item's value.
    Good(Value),
    /// The error naming it (it is skipped, the List's other items load).
    Bad(InputError),
    /// Its text reads as something else than one item (the split went wrong).
    NotOne,
}

/// Item `k` of a YAML List whose document's first line is `origin`'s: its
/// text `text` (its `- ` line and the lines up to the next item) starts on
/// the document's 0-based line `at`. An item nesting deeper than
/// `max_depth` (measured under an `items:` key, as it nests in the
/// document) is not parsed; keys are checked for duplicates (`strict`).
pub(crate) fn parse_item(text: &str, at: usize, k: u64, origin: &Origin, max_depth: usize) -> Item {
    let first_line = origin.line.unwrap_or(1);
    if let Some((line, depth)) = depth::too_deep(&format!("items:\n{text}"), max_depth) {
        return Item::Bad(InputError {
            origin: Origin { line: Some(first_line - 1 + at as u64 + line - 1), item: Some(k), ..origin.clone() },
            column: None,
            message: depth::too_deep_item_message(depth, max_depth),
        });
    }
    match super::strict::yaml_value(text) {
        Ok(Value::Array(mut one)) if one.len() == 1 => one.pop().map_or(Item::NotOne, Item::Good),
        Ok(_) => Item::NotOne,
        Err(e) if super::strict::stopped(&e) => Item::Bad(InputError {
            origin: Origin { line: Some(first_line + at as u64), item: Some(k), ..origin.clone() },
            column: None,
            message: super::walk::STOPPED.to_string(),
        }),
        Err(e) if super::strict::expands_too_much(&e) => Item::Bad(InputError {
            origin: Origin { line: Some(first_line + at as u64), item: Some(k), ..origin.clone() },
            column: None,
            message: format!(
                "{}; it is skipped (not stored), the List's other items are loaded",
                super::strict::expansion_message("this item", text)
            ),
        }),
        Err(e) => Item::Bad(InputError {
            origin: Origin { line: Some(first_line + at as u64), item: Some(k), ..origin.clone() },
            column: None,
            message: format!(
                "invalid YAML in this item: {}; it is skipped (not stored), the List's other items are loaded",
                shift_line_numbers(&e.to_string(), first_line - 1 + at as u64)
            ),
        }),
    }
}

#[cfg(test)]
mod tests {
    use crate::parse::{parse_bytes, Naming};

    #[test]
    fn a_yaml_list_with_one_bad_item_keeps_the_others() {
        let item = |i: usize| format!("- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p{i}\n    namespace: d\n");
        let mut items: Vec<String> = (0..5).map(item).collect();
        items[2] = "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: \"p2\n    namespace: d\n".to_string();
        let text =
            format!("apiVersion: v1\nitems:\n{}kind: List\nmetadata:\n  resourceVersion: \"\"\n", items.concat());
        let p = parse_bytes("pods.yaml", text.as_bytes(), Naming::Yaml);
        let got: Vec<(String, Option<u64>)> = p
            .records
            .iter()
            .map(|r| (r.object["metadata"]["name"].as_str().unwrap_or_default().to_string(), r.origin.item))
            .collect();
        let want: Vec<(String, Option<u64>)> =
            [0, 1, 3, 4].iter().map(|i| (format!("p{i}"), Some(*i as u64))).collect();
        assert_eq!(got, want, "{:?}", p.errors);
        assert_eq!(p.errors.len(), 1, "{:?}", p.errors);
        let e = &p.errors[0];
        assert_eq!((e.origin.line, e.origin.item), (Some(13), Some(2)), "{e}");
        assert!(e.message.starts_with("invalid YAML in this item: "), "{e}");
        // Lines counted from the file's start: the quote opens on line 16.
        assert_eq!(
            e.message,
            "invalid YAML in this item: found unexpected end of stream at line 18 column 1, while scanning a quoted \
             scalar at line 16 column 11; it is skipped (not stored), the List's other items are loaded"
        );
    }

    /// Break-it 32 N6: one item of a YAML List nested past the depth cap
    /// lost all 10 items; the cap applies per item.
    #[test]
    fn a_yaml_list_item_nested_too_deep_is_skipped_alone() {
        let item = |i: usize| format!("- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p{i}\n    namespace: d\n");
        let mut items: Vec<String> = (0..10).map(item).collect();
        items[5] = format!(
            "- apiVersion: v1\n  kind: Pod\n  metadata: {{name: deep, namespace: d}}\n  x: {}{}\n",
            "[".repeat(300),
            "]".repeat(300)
        );
        let text = format!("apiVersion: v1\nkind: List\nmetadata: {{}}\nitems:\n{}", items.concat());
        let p = parse_bytes("pods.yaml", text.as_bytes(), Naming::Yaml);
        let got: Vec<(String, Option<u64>)> = p
            .records
            .iter()
            .map(|r| (r.object["metadata"]["name"].as_str().unwrap_or_default().to_string(), r.origin.item))
            .collect();
        let want: Vec<(String, Option<u64>)> =
            [0, 1, 2, 3, 4, 6, 7, 8, 9].iter().map(|i| (format!("p{i}"), Some(*i as u64))).collect();
        assert_eq!(got, want, "{:?}", p.errors);
        let errors: Vec<String> = p.errors.iter().map(ToString::to_string).collect();
        // Item 5 starts on line 30; its `x:` is line 33.
        assert_eq!(
            errors,
            ["pods.yaml:33: items[5]: this item nests 129 levels deep here, more than the 128 kdrift reads in a YAML \
              document (no Kubernetes object comes near; the YAML parser's own limit); it is skipped (not stored), \
              the List's other items are loaded"]
        );
        // Deep in the List's own fields: the document is one error, as before.
        let text = format!("apiVersion: v1\nkind: List\nx: {}\nitems:\n{}", "[".repeat(300), item(0));
        let p = parse_bytes("pods.yaml", text.as_bytes(), Naming::Yaml);
        assert_eq!((p.records.len(), p.errors.len()), (0, 1), "{:?}", p.errors);
        assert!(p.errors[0].message.starts_with("YAML document 1 nests 129 levels"), "{}", p.errors[0]);
    }

    /// Break-it 33 F3: `resourceVersion` twice in a YAML List's own
    /// `metadata` lost all 10 items (its JSON form kept them).
    #[test]
    fn a_key_twice_in_a_yaml_lists_own_fields_keeps_its_items() {
        let item = |i: usize| format!("- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p{i}\n    namespace: d\n");
        let items: Vec<String> = (0..10).map(item).collect();
        let text = format!(
            "apiVersion: v1\nkind: List\nmetadata:\n  resourceVersion: \"\"\n  resourceVersion: \"\"\nitems:\n{}",
            items.concat()
        );
        let p = parse_bytes("pods.yaml", text.as_bytes(), Naming::Yaml);
        let got: Vec<(String, Option<u64>)> = p
            .records
            .iter()
            .map(|r| (r.object["metadata"]["name"].as_str().unwrap_or_default().to_string(), r.origin.item))
            .collect();
        let want: Vec<(String, Option<u64>)> = (0..10).map(|i| (format!("p{i}"), Some(i as u64))).collect();
        assert_eq!(got, want, "{:?}", p.errors);
        let errors: Vec<String> = p.errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            errors,
            ["pods.yaml:4:3: the key \"resourceVersion\" appears twice in one object (at metadata.resourceVersion; \
              which value is meant is unknown); the List's value of `metadata` is read with the last of them, its \
              items are loaded"]
        );
        // After the items, and at the top level.
        let text = format!("apiVersion: v1\nitems:\n{}kind: List\nkind: List\n", items.concat());
        let p = parse_bytes("pods.yaml", text.as_bytes(), Naming::Yaml);
        assert_eq!(p.records.len(), 10, "{:?}", p.errors);
        let errors: Vec<String> = p.errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            errors,
            ["pods.yaml:1:1: the key \"kind\" appears twice in one object (at kind; which value is meant is \
              unknown); the List is read with the last of them, its items are loaded"]
        );
    }

    /// Break-it 41 G5: a second top-level `items:` sequence, here after
    /// `kind: List` and holding a bad item: the items of both load,
    /// numbered on, with one error at the second key in JSON's words.
    #[test]
    fn a_yaml_lists_second_items_key_loads_its_items_numbered_on() {
        let item = |i: usize| format!("- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p{i}\n    namespace: d\n");
        let bad = "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: \"p3\n    namespace: d\n";
        let text =
            format!("apiVersion: v1\nitems:\n{}{}kind: List\nitems:\n{}{bad}{}", item(0), item(1), item(2), item(4));
        let p = parse_bytes("pods.yaml", text.as_bytes(), Naming::Yaml);
        let got: Vec<(String, Option<u64>, Option<u64>)> = p
            .records
            .iter()
            .map(|r| {
                let name = r.object["metadata"]["name"].as_str().unwrap_or_default().to_string();
                (name, r.origin.item, r.origin.line)
            })
            .collect();
        let want: Vec<(String, Option<u64>, Option<u64>)> =
            [(0, 3), (1, 8), (2, 15), (4, 25)].iter().map(|&(i, l)| (format!("p{i}"), Some(i), Some(l))).collect();
        assert_eq!(got, want, "{:?}", p.errors);
        let errors: Vec<String> = p.errors.iter().map(ToString::to_string).collect();
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert_eq!(
            errors[0],
            "pods.yaml:14: the key \"items\" appears twice in the List; expected one: a List has one `items` array; the \
             items of both are loaded, the second's numbered on from items[2]"
        );
        assert!(errors[1].starts_with("pods.yaml:20: items[3]: invalid YAML in this item: "), "{errors:?}");
    }
}
