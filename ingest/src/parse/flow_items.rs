//! A YAML List whose items are written in flow style, `items: [ {…},
//! {…} ]` (a JSON List's items pasted into YAML), that does not parse as
//! YAML: its items are read as a JSON array, item by item, so that one bad
//! item does not lose the others (break-it 42 H3: one missing colon lost
//! all 400). Items that are no JSON (YAML flow mappings with plain keys)
//! leave the document one error, which says how to write the items.

use super::walk::{read_array, Walked};
use super::{InputError, Parsed};
use crate::interrupt::Interrupt;
use crate::store::Origin;

/// What the error of a List document with flow-style items that could not
/// be read item by item adds.
pub(super) const FLOW_ITEMS_HINT: &str = "its items are in flow style (`items: [ … ]`), read as one value: one bad \
     item fails the document; write them as a block list (`- …` lines) or save the List as JSON";

/// The offset in `doc_text` of the `[` of a top-level `items: [` (or
/// `Items: [`) line, in column 0.
pub(super) fn flow_items_at(doc_text: &str) -> Option<usize> {
    let mut offset = 0;
    for line in doc_text.split_inclusive('\n') {
        let rest = line.strip_prefix("items:").or_else(|| line.strip_prefix("Items:"));
        if let Some(rest) = rest {
            let blanks = rest.len() - rest.trim_start_matches([' ', '\t']).len();
            if rest[blanks..].starts_with('[') {
                return Some(offset + line.len() - rest.len() + blanks);
            }
        }
        offset += line.len();
    }
    None
}

/// Reads the flow-style items of the YAML List document `doc_text`
/// (beginning on line `origin.line`), which did not parse as YAML
/// (`yaml_error`, said when no item is bad), as a JSON array into `out`.
/// False (nothing added) when it has no `items: [` line or no item is
/// read.
pub(super) fn recover_flow_items(
    doc_text: &str,
    origin: &Origin,
    hint: Option<&str>,
    yaml_error: &InputError,
    out: &mut Parsed,
) -> bool {
    let Some(open) = flow_items_at(doc_text) else { return false };
    let mut read = Parsed::default();
    let walked = read_array(&origin.location, doc_text.as_bytes(), open, hint, &Interrupt::new(), &mut read);
    if matches!(walked, Walked::Whole) || read.records.is_empty() {
        return false;
    }
    // Lines counted from the document's first line, as the file counts them.
    let shift = origin.line.unwrap_or(1) - 1;
    for r in &mut read.records {
        r.origin.line = r.origin.line.map(|l| l + shift);
    }
    for e in &mut read.errors {
        e.origin.line = e.origin.line.map(|l| l + shift);
    }
    if read.errors.is_empty() {
        let mut said = yaml_error.clone();
        said.message.push_str("; the List's items (flow style, `items: [ … ]`) are loaded");
        out.add_error(said);
    }
    out.records.append(&mut read.records);
    out.skipped += read.skipped;
    for e in read.errors {
        out.add_error(e);
    }
    out.errors_not_kept += read.errors_not_kept;
    true
}
