//! Where each line of a YAML document stands, told from the line alone and
//! the lines before it (no parsing): the List's own fields, the first line
//! of one of its top-level items, or a line of that item. The split is the
//! one the whole-file reader uses to read a List item by item when its
//! document does not parse (`crate::parse::cut::item_starts` for where the
//! items start, `crate::parse::yaml_items::ends_items` for where they
//! end), so that every item is the same text read either way:
//!
//! - the items follow the document's first unindented `items:` line (with
//!   nothing after the colon), from its first `- ` line on, whose
//!   indentation is the items' (kubectl writes them unindented; indented
//!   ones are read alike);
//! - an item starts at each `- ` (or bare `-`) line at that indentation;
//!   deeper ones, blank lines and comments belong to the item before;
//! - the items end at the first unindented line that is not blank, a
//!   comment or a `-` line (`kind: List`, `metadata:` after them).
//!
//! A document whose `items:` is followed by anything but a `- ` line
//! (`items: []`, `items:` then a mapping) has no items here: it is read
//! whole. An unindented `-x` line among the items (no item, no key) is
//! [`Part::Odd`]: the file is left to the whole-file reader.

/// Where a line stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Part {
    /// A line of the List's own fields (before its first item or after
    /// its items), or of a document without items.
    Fields,
    /// The first line of an item.
    ItemStart,
    /// A line of the current item.
    Item,
    /// An unindented line among the items that is neither an item nor a
    /// key (`-x`): not split here.
    Odd,
}

/// The state of one document's lines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum State {
    /// Before the top-level `items:` line.
    #[default]
    Head,
    /// After `items:`, before anything but blanks and comments.
    ItemsKey,
    /// Among the items, indented this much.
    Items(usize),
    /// After the items, or after an `items:` not followed by items.
    Fields,
}

/// The layout of the document being read ([`Layout::line`] for each of its
/// lines in order; [`Layout::new_document`] at each `---`).
#[derive(Debug, Default)]
pub(super) struct Layout {
    state: State,
}

impl Layout {
    /// A new document begins.
    pub(super) fn new_document(&mut self) {
        self.state = State::Head;
    }

    /// Where `line` (its newline kept or not) stands, the lines before it
    /// of the same document given already.
    pub(super) fn line(&mut self, line: &str) -> Part {
        // As `str::lines` gives it: no `\n`, no `\r` before it.
        let bare = line.strip_suffix('\n').unwrap_or(line);
        let bare = bare.strip_suffix('\r').unwrap_or(bare);
        let body = bare.trim_start();
        let depth = bare.len() - body.len();
        let item = body == "-" || body.starts_with("- ");
        match self.state {
            State::Head => {
                if bare.strip_prefix("items:").is_some_and(|rest| rest.trim().is_empty()) {
                    self.state = State::ItemsKey;
                }
                Part::Fields
            }
            State::ItemsKey if body.is_empty() || body.starts_with('#') => Part::Fields,
            State::ItemsKey if item => {
                self.state = State::Items(depth);
                Part::ItemStart
            }
            State::ItemsKey => {
                self.state = State::Fields;
                Part::Fields
            }
            State::Items(_) if crate::parse::ends_items(line) => {
                self.state = State::Fields;
                Part::Fields
            }
            State::Items(_) if body.is_empty() || body.starts_with('#') => Part::Item,
            State::Items(indent) if item && depth == indent => Part::ItemStart,
            State::Items(_) if depth == 0 && !item => Part::Odd,
            State::Items(_) => Part::Item,
            State::Fields => Part::Fields,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(text: &str) -> Vec<Part> {
        let mut layout = Layout::default();
        text.split_inclusive('\n').map(|l| layout.line(l)).collect()
    }

    #[test]
    fn items_start_at_their_own_dashes_and_end_at_the_lists_fields() {
        use Part::{Fields as F, Item as I, ItemStart as S};
        let text = "apiVersion: v1\nitems:\n# c\n- kind: Pod\n  spec:\n    containers:\n    - name: a\n\n- kind: \
                    Pod\n  list:\n  - x\nkind: List\nmetadata:\n  resourceVersion: \"\"\n";
        assert_eq!(parts(text), [F, F, F, S, I, I, I, I, S, I, I, F, F, F]);
        // Indented items; an unindented `- ` line is part of the item before.
        assert_eq!(parts("items:\n  - a: 1\n    b:\n    - c\n  - a: 2\n- x\n"), [F, S, I, I, S, I]);
        // No items: `items: []`, or a mapping under `items:`.
        assert_eq!(parts("kind: List\nitems: []\n- x\n"), [F, F, F]);
        assert_eq!(parts("items:\n  a: 1\n- b\n"), [F, F, F]);
        // An unindented `-x` among the items is not split here.
        assert_eq!(parts("items:\n- a\n-x\n"), [F, S, Part::Odd]);
        // CRLF line ends.
        assert_eq!(parts("items:\r\n- a\r\n  b: 1\r\nkind: List\r\n"), [F, S, I, F]);
    }
}
