//! How deep a YAML document nests, measured before it is parsed: the YAML
//! parser's work grows with the square of the depth before its own
//! recursion limit fires (100,000 levels in a 200 KB file took 38 s,
//! 200,000 levels 232 s: kdrift issue 34), while no Kubernetes object
//! nests more than a few dozen levels. [`too_deep`] finds a document
//! deeper than [`MAX_YAML_DEPTH`] in one pass over its bytes, so such a
//! document is an input error at once.
//!
//! The measure counts, on each line, the block collections open around it
//! (a stack of indentations), the `- ` and `? ` entries that open a nested
//! block collection on the same line (`- - - x`), and the flow collections
//! (`[`, `{`) open at each character outside quoted scalars and comments.
//! It may count a level the parser would not (a plain scalar holding `[`
//! is read as a flow opening here): it only ever errs on the deep side,
//! and the limit is far above any object kdrift reads.

/// The deepest nesting a YAML document may have (block and flow levels):
/// the YAML parser's own limit (serde_norway refuses more than 128 nested
/// collections, "recursion limit exceeded"), checked here first so that a
/// deeper document is refused at once with its line. `kdrift ingest file
/// --max-yaml-depth N` lowers it; it cannot be raised past the parser's.
/// The measure only errs on the deep side, so a document within it parses.
pub const MAX_YAML_DEPTH: usize = 128;

/// The flag that sets the limit [`too_deep`] checks.
pub const FLAG: &str = "--max-yaml-depth";

/// The error of YAML document `number` (1-based) found `depth` levels deep,
/// past `limit`: names the limit and, below [`MAX_YAML_DEPTH`], the flag
/// that raises it.
pub fn too_deep_message(number: usize, depth: usize, limit: usize) -> String {
    let raise = raise(limit);
    format!(
        "YAML document {number} nests {depth} levels deep here, more than the {limit} kdrift reads (no Kubernetes \
         object comes near; {raise}); not parsed; expected a Kubernetes object or list"
    )
}

/// The error of one item of a YAML List found `depth` levels deep (counted
/// from the document's top), past `limit`: the item alone is skipped.
pub fn too_deep_item_message(depth: usize, limit: usize) -> String {
    let raise = raise(limit);
    format!(
        "this item nests {depth} levels deep here, more than the {limit} kdrift reads in a YAML document (no \
         Kubernetes object comes near; {raise}); it is skipped (not stored), the List's other items are loaded"
    )
}

/// How `limit` may be raised, or that it is the parser's own.
fn raise(limit: usize) -> String {
    if limit < MAX_YAML_DEPTH {
        format!("raise the limit with {FLAG} N, up to {MAX_YAML_DEPTH}")
    } else {
        "the YAML parser's own limit".to_string()
    }
}

/// The first line (1-based, within `text`) at which the nesting passes
/// `limit`, with the depth reached there; `None` when it never does.
pub fn too_deep(text: &str, limit: usize) -> Option<(u64, usize)> {
    // Indentations of the block collections open around the current line.
    let mut blocks: Vec<usize> = Vec::new();
    // Flow collections open (they may span lines), and the quote we are in.
    let mut flow = 0usize;
    let mut quote: Option<u8> = None;
    for (i, line) in text.split('\n').enumerate() {
        let bytes = line.as_bytes();
        let mut pos = 0usize;
        if flow == 0 && quote.is_none() {
            let indent = bytes.iter().take_while(|b| **b == b' ').count();
            let rest = &bytes[indent..];
            if rest.is_empty() || rest[0] == b'#' || rest == b"\r" {
                continue;
            }
            while blocks.last().is_some_and(|open| *open >= indent) {
                blocks.pop();
            }
            blocks.push(indent);
            pos = indent;
            // `- - - x` and `? - x`: each entry indicator opens one more level.
            while pos + 1 < bytes.len() && matches!(bytes[pos], b'-' | b'?') && bytes[pos + 1] == b' ' {
                pos += 2;
                while pos < bytes.len() && bytes[pos] == b' ' {
                    pos += 1;
                }
                blocks.push(pos);
                if blocks.len() > limit {
                    return Some((i as u64 + 1, blocks.len()));
                }
            }
        }
        let mut prev = b' ';
        while pos < bytes.len() {
            let b = bytes[pos];
            match quote {
                Some(q) => {
                    if b == q {
                        quote = None;
                    } else if q == b'"' && b == b'\\' {
                        pos += 1; // the escaped character
                    }
                }
                None => match b {
                    b'"' | b'\'' if matches!(prev, b' ' | b'[' | b'{' | b',' | b':') => quote = Some(b),
                    b'#' if prev == b' ' => break,
                    b'[' | b'{' => {
                        flow += 1;
                        if blocks.len() + flow > limit {
                            return Some((i as u64 + 1, blocks.len() + flow));
                        }
                    }
                    b']' | b'}' => flow = flow.saturating_sub(1),
                    _ => {}
                },
            }
            prev = b;
            pos += 1;
        }
        if blocks.len() + flow > limit {
            return Some((i as u64 + 1, blocks.len() + flow));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubernetes_objects_are_shallow() {
        let pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-0\n  labels: {app: web, tier: \"[x\"}\n\
                   spec:\n  containers:\n  - name: c\n    args: [\"--a\", \"{b}\"]  # [ not counted\n    \
                   resources:\n      requests:\n        cpu: 100m\n";
        assert_eq!(too_deep(pod, 8), None);
        // spec → containers → the item → requests → cpu: 5 levels at line 12.
        assert_eq!(too_deep(pod, 4), Some((12, 5)));
    }

    #[test]
    fn deep_flow_block_and_entry_nesting_is_found_on_its_line() {
        let flow = format!("a: 1\nb: {}{}\n", "[".repeat(1000), "]".repeat(1000));
        assert_eq!(too_deep(&flow, MAX_YAML_DEPTH), Some((2, MAX_YAML_DEPTH + 1)));
        let entries = format!("{}x\n", "- ".repeat(100_000));
        assert_eq!(too_deep(&entries, MAX_YAML_DEPTH), Some((1, MAX_YAML_DEPTH + 1)));
        let mut block = String::new();
        for d in 0..600 {
            block.push_str(&" ".repeat(d));
            block.push_str("k:\n");
        }
        assert_eq!(too_deep(&block, MAX_YAML_DEPTH), Some((MAX_YAML_DEPTH as u64 + 1, MAX_YAML_DEPTH + 1)));
        // Closed again before it gets deep: fine.
        let wide = "[]\n".repeat(10_000);
        assert_eq!(too_deep(&wide, MAX_YAML_DEPTH), None);
    }

    #[test]
    fn without_a_limit_every_level_is_counted_without_overflow() {
        let entries = format!("{}x\n", "- ".repeat(200_000));
        assert_eq!(too_deep(&entries, usize::MAX), None);
        assert_eq!(too_deep(&entries, 200_000), Some((1, 200_001)));
    }
}
