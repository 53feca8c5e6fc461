//! A List whose own fields (outside its items) break the JSON syntax:
//! its items are found by their key past the break, even when that key is
//! the damage (break-it 42 H1, 43 N1), and the break is one error.

use super::*;

/// A List document whose own fields (outside its items) break the JSON
/// syntax at `at` (`what`; break-it 42 H1: one missing colon in its
/// trailing `metadata` lost all 400 items): its items, walked already or
/// found after the break by their key ([`items_array_at`]), load as for a
/// List cut off at its end, and the break is one error naming its place.
/// A document with no top-level `items` array, or that is no List, is
/// left to the caller ([`Walked::Whole`]).
pub(super) fn broken_fields(
    read: Read<'_>,
    interrupt: &Interrupt,
    mut fields: Map<String, Value>,
    items: Option<(String, Items)>,
    mut twice: Vec<InputError>,
    (at, what): (usize, String),
    out: &mut Parsed,
) -> Walked {
    let Read { location, bytes, start, hint, .. } = read;
    let mut end = ItemsEnd::Closed;
    // Where reading may go on: past the break, and past items after it.
    let mut resume = at;
    // How the items' key itself is damaged, when that is the break.
    let mut key_damaged = None;
    let (key, list) = match items {
        Some(items) => items,
        None => {
            // The break at the key's `[` (`"items" [`) or at the key (`items: [`).
            let Some(ItemsAt { key, open, damaged }) = items_array_at(bytes, start).filter(|a| a.open >= at) else {
                return Walked::Whole;
            };
            key_damaged = damaged.map(|how| (key.clone(), how));
            let mut walk = Walk { bytes, pos: open + 1, checked: open, interrupt };
            let mut list = Items::default();
            match walk_items(&mut walk, &mut list, location) {
                ItemsEnd::Closed => {}
                ItemsEnd::Interrupted => return stopped(location, bytes, walk.pos, Some(list.walked), out),
                other => end = other,
            }
            resume = walk.pos;
            fields.insert(key.clone(), Value::Null);
            (key, list)
        }
    };
    let said = match key_damaged {
        Some((key, how)) => format!(
            "{what}: the List's key {key:?} is damaged ({how}); the array after it is read as the List's items ({} \
             read, the good ones loaded), the rest of its fields is not read",
            list.walked
        ),
        None => format!(
            "{what}, in the List's own fields (outside its items); its items are loaded, the rest of its fields is \
             not read"
        ),
    };
    twice.push(list_error(location, bytes, at, said));
    // The document ends at its closing `}` (its brackets still pair);
    // else the next document is looked for after the break.
    // (Not past a `{` in column 0: the next document, when this one's `}` is missing.)
    let doc_end = value_end(bytes, start).filter(|e| *e > resume && !bytes[resume..*e].windows(2).any(|w| w == b"\n{"));
    let closed = matches!(end, ItemsEnd::Closed);
    let pos = doc_end.unwrap_or(bytes.len());
    match finish(Read { location, bytes, start, pos, hint }, fields, (key, list), end, twice, out) {
        Walked::Read(_) if closed && doc_end.is_none() => Walked::Broken(resume),
        walked => walked,
    }
}

/// The top-level items array of a List whose syntax is broken: its key
/// (`items` or `Items`), the offset of its `[`, and how the key itself is
/// damaged, if it is (break-it 43 N1: `"items" [` or `items: [` lost all
/// 400 items).
struct ItemsAt {
    key: String,
    open: usize,
    damaged: Option<&'static str>,
}

/// The [`ItemsAt`] of the JSON object that opens at `start`, found by a
/// scan of its brackets that steps over strings (not parsing: the object's
/// syntax is broken elsewhere); a missing `:` after the key, or the key
/// written without its quotes (`items: [`), is stepped over and said.
fn items_array_at(bytes: &[u8], start: usize) -> Option<ItemsAt> {
    // The `[` after a key that ends before `from`, and whether a `:` came between.
    let array_after = |from: usize| -> Option<(usize, bool)> {
        let mut j = from;
        j += bytes.get(j..)?.iter().take_while(|b| b.is_ascii_whitespace()).count();
        let colon = bytes.get(j) == Some(&b':');
        if colon {
            j += 1;
            j += bytes[j..].iter().take_while(|b| b.is_ascii_whitespace()).count();
        }
        (bytes.get(j) == Some(&b'[')).then_some((j, colon))
    };
    let mut depth = 0usize;
    let mut i = start;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let open = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                let text = bytes.get(open + 1..i.min(bytes.len()))?;
                if depth == 1 && (text == b"items" || text == b"Items") {
                    if let Some((j, colon)) = array_after(i + 1) {
                        let damaged = (!colon).then_some("no `:` after it");
                        return Some(ItemsAt { key: String::from_utf8_lossy(text).into_owned(), open: j, damaged });
                    }
                }
            }
            // A key without its quotes, after the `{` or a `,` (and blanks).
            b'i' | b'I'
                if depth == 1
                    && (bytes[i + 1..].starts_with(b"tems"))
                    && bytes[..i]
                        .iter()
                        .rev()
                        .find(|b| !b.is_ascii_whitespace())
                        .is_some_and(|b| matches!(b, b'{' | b','))
                    && !bytes.get(i + 5).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_') =>
            {
                if let Some((j, _)) = array_after(i + 5) {
                    let key = String::from_utf8_lossy(&bytes[i..i + 5]).into_owned();
                    return Some(ItemsAt { key, open: j, damaged: Some("written without its quotes") });
                }
                i += 4;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return None;
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}
