//! JSON documents read key by key, and a List's items one at a time
//! (kubectl writes Lists of hundreds of MB in one document):
//!
//! - an item that does not parse (invalid UTF-8 in a string, a missing
//!   comma, a bad value) is skipped to its end, found by a scan of its
//!   brackets that steps over strings ([`super::resync`]), reported as
//!   `items[i]` at the line it starts on with what was wrong, and the walk
//!   goes on at the next item; the good items keep their own index `i`;
//!   a string that lost its closing quote ends at its line's end, and on a
//!   one-line List the walk resyncs at the next item of the List's kind
//!   ([`super::resync`]), so the items after a bad one are not taken with it;
//! - a List cut off by the end of the file keeps its complete items
//!   ([`super::cut::json_cut_error`] words the cut);
//! - a List with its `items` twice (a List has one array) keeps the items
//!   of both, numbered on, and says so at the second key
//!   ([`items_twice_message`]; issue 34: both were lost);
//! - the interrupt is looked at every [`CHECK_EVERY`] bytes read, so that
//!   SIGINT stops a long parse within a few MB, between a List's items and
//!   inside one huge value of an object that is no List.
//!
//! - a List whose own fields break the JSON syntax keeps its items, found
//!   by their key past the break, even when that key is the damage
//!   (`"items" [`, `items: [`: break-it 43 N1), and says so.
//!
//! A document this walk cannot read better than a whole parse (a bad key
//! or value outside the items, anything but a List with a bad or cut item)
//! is left to the caller ([`Walked::Whole`]), which reports it as one error.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::cut::{json_cut_error, CutAt};
use super::resync::{closed_early, offset_of, resync, value_end};
use super::{expand_document, is_list, json_error_what, legacy, line_of_offset, InputError, Parsed};
use crate::interrupt::Interrupt;
use crate::store::Origin;

mod broken;
use broken::broken_fields;

/// How many bytes of input are read between two looks at the interrupt.
pub(super) const CHECK_EVERY: usize = 4 << 20;

/// What reading stopped early says, at the place it stopped.
pub(crate) const STOPPED: &str =
    "reading stopped here on an interrupt (SIGINT or SIGTERM): the rest of the file is not read";

/// How a document's walk ended.
pub(super) enum Walked {
    /// Read (its records and errors are in `out`); the next document may
    /// start at this offset (the end of the input when the List was cut).
    Read(usize),
    /// Read up to a point after which the List's syntax is broken (reported,
    /// its items before it are in `out`): the next document is looked for
    /// from this offset.
    Broken(usize),
    /// Nothing added: the caller parses the document whole and reports it.
    Whole,
    /// The interrupt was triggered (reported in `out`): stop reading the file.
    Interrupted,
}

/// One step of the walk.
enum Step<T> {
    /// A complete value.
    Got(T),
    /// The input ends inside the value (or before it).
    Cut,
    /// Not valid JSON here (the parser's error, when it parsed).
    Bad(Option<serde_json::Error>),
}

/// A cursor over the bytes of one JSON document.
struct Walk<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// The offset at which the interrupt was last looked at.
    checked: usize,
    interrupt: &'a Interrupt,
}

impl Walk<'_> {
    /// The next byte that is not a blank (without taking it); `None` at the end.
    fn peek(&mut self) -> Option<u8> {
        self.pos += self.bytes[self.pos..].iter().take_while(|b| b.is_ascii_whitespace()).count();
        self.bytes.get(self.pos).copied()
    }

    /// Takes the next non-blank byte when it is `b`.
    fn eat(&mut self, b: u8) -> Step<()> {
        match self.peek() {
            None => Step::Cut,
            Some(c) if c == b => {
                self.pos += 1;
                Step::Got(())
            }
            Some(_) => Step::Bad(None),
        }
    }

    /// Parses the next value.
    fn value<T: DeserializeOwned>(&mut self) -> Step<T> {
        if self.peek().is_none() {
            return Step::Cut;
        }
        let mut stream = serde_json::Deserializer::from_slice(&self.bytes[self.pos..]).into_iter::<T>();
        match stream.next() {
            Some(Ok(v)) => {
                self.pos += stream.byte_offset();
                Step::Got(v)
            }
            Some(Err(e)) if e.is_eof() => Step::Cut,
            None => Step::Cut,
            Some(Err(e)) => Step::Bad(Some(e)),
        }
    }

    /// [`Walk::value`] for a value that may be long (a key's of a document:
    /// one huge object that is no List): with more than [`CHECK_EVERY`]
    /// bytes of input left, parsed through a reader that fails once the
    /// interrupt is triggered, looked at every [`CHECK_EVERY`] bytes (the
    /// caller sees `Bad` and the interrupt triggered).
    fn long_value<T: DeserializeOwned>(&mut self) -> Step<T> {
        if self.peek().is_none() {
            return Step::Cut;
        }
        if self.bytes.len() - self.pos <= CHECK_EVERY {
            return self.value();
        }
        let reader = UntilInterrupt { rest: &self.bytes[self.pos..], read: 0, checked: 0, interrupt: self.interrupt };
        let mut stream =
            serde_json::Deserializer::from_reader(std::io::BufReader::with_capacity(64 << 10, reader)).into_iter::<T>();
        match stream.next() {
            Some(Ok(v)) => {
                self.pos += stream.byte_offset();
                Step::Got(v)
            }
            Some(Err(e)) if e.is_eof() => Step::Cut,
            None => Step::Cut,
            Some(Err(e)) => Step::Bad(Some(e)),
        }
    }

    /// Whether the interrupt is triggered, looked at once [`CHECK_EVERY`]
    /// bytes were read since the last look.
    fn interrupted(&mut self) -> bool {
        if self.pos >= self.checked + CHECK_EVERY {
            self.checked = self.pos;
            return self.interrupt.is_triggered();
        }
        false
    }
}

/// Input bytes as a reader that fails once the interrupt is triggered,
/// looked at every [`CHECK_EVERY`] bytes given out.
struct UntilInterrupt<'a> {
    rest: &'a [u8],
    read: usize,
    checked: usize,
    interrupt: &'a Interrupt,
}

impl std::io::Read for UntilInterrupt<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.read >= self.checked + CHECK_EVERY {
            self.checked = self.read;
            if self.interrupt.is_triggered() {
                // Not `Interrupted`: readers retry that one.
                return Err(std::io::Error::other("interrupted"));
            }
        }
        let n = buf.len().min(self.rest.len());
        buf[..n].copy_from_slice(&self.rest[..n]);
        self.rest = &self.rest[n..];
        self.read += n;
        Ok(n)
    }
}

/// The items of a List walked so far.
#[derive(Default)]
struct Items {
    /// The good ones, in file order.
    values: Vec<Value>,
    /// Each good one's index among all the List's items.
    index: Vec<u64>,
    /// Each good one's first byte (its line, in errors).
    starts: Vec<usize>,
    /// Items met, good or bad.
    walked: u64,
    /// The bad ones' errors, the first
    /// [`crate::kept_errors::KEPT_ERRORS_PER_FILE`] of them.
    errors: Vec<InputError>,
    /// Those past them, only counted.
    errors_not_kept: u64,
}

impl Items {
    /// Keeps a bad item's `error` ([`crate::kept_errors::keep`]).
    fn add_error(&mut self, error: InputError) {
        crate::kept_errors::keep(&mut self.errors, &mut self.errors_not_kept, error);
    }
}

/// How the walk through a List's items ended.
enum ItemsEnd {
    /// At the `]`.
    Closed,
    /// At the end of the input.
    Cut(CutAt),
    /// A bad item whose end the input does not hold (reported): nothing after it is read.
    Unended,
    /// Not `,` or `]` after an item, at this offset (reported).
    Broken(usize),
    /// The interrupt was triggered.
    Interrupted,
}

/// Reads the JSON document that opens at `start` in `bytes` (a `{`) into
/// `out` as [`expand_document`] does with the whole document, except that
/// the items of a List (an `items` array, `Items` in old internal-type
/// dumps) are read one at a time: a bad item is an error naming it and the
/// others load with their own index; a cut one ends the List with an error
/// saying where the file ends. See [`Walked`] for what the caller does next.
pub(super) fn read_document(
    location: &str,
    bytes: &[u8],
    start: usize,
    hint: Option<&str>,
    interrupt: &Interrupt,
    out: &mut Parsed,
) -> Walked {
    let mut walk = Walk { bytes, pos: start, checked: start, interrupt };
    if !matches!(walk.eat(b'{'), Step::Got(())) {
        return Walked::Whole;
    }
    let mut fields = Map::new();
    // Bytes the fields read so far take parsed: the document as a whole
    // stays within this thread's cap (`super::strict::Bounds`).
    let bounds = super::strict::current();
    let mut used = kdrift_rebalance::parsed_size::VALUE_BYTES;
    let mut items: Option<(String, Items)> = None;
    // The keys that appear twice in a value outside the items.
    let mut twice: Vec<InputError> = Vec::new();
    // Until the `}`: cut after the items (or before them, then nothing to keep).
    let mut end = ItemsEnd::Cut(CutAt::AfterItems);
    if walk.peek() == Some(b'}') {
        walk.pos += 1;
        end = ItemsEnd::Closed;
    }
    // A syntax error in the List's own fields (break-it 42 H1): at this
    // offset, saying this.
    let mut broken: Option<(usize, String)> = None;
    while !matches!(end, ItemsEnd::Closed) {
        walk.peek();
        let key_at = walk.pos;
        let key = match walk.value::<String>() {
            // The items twice: read below (issue 34).
            Step::Got(key) if items.as_ref().is_some_and(|(k, _)| *k == key) => key,
            // Another of the List's own keys twice (`kind`, `metadata`):
            // said, read with the last of them, and its items are read
            // (break-it 33 F3; a document that is no List is reported whole).
            Step::Got(key) if fields.contains_key(&key) => {
                twice.push(list_error(
                    location,
                    bytes,
                    key_at,
                    format!(
                        "{}; the List is read with the last of them, its items are loaded",
                        kdrift_rebalance::duplicate_message(&key, &key)
                    ),
                ));
                key
            }
            Step::Got(key) => key,
            Step::Cut => break,
            Step::Bad(e) => {
                broken = Some(syntax_error_at(bytes, key_at, e.as_ref(), "expected a key (a string)"));
                break;
            }
        };
        match walk.eat(b':') {
            Step::Got(()) => {}
            Step::Cut => break,
            Step::Bad(_) => {
                broken = Some((walk.pos, format!("invalid JSON: expected `:` after the key {key:?}")));
                break;
            }
        }
        if let Some((_, list)) = items.as_mut().filter(|(k, _)| *k == key) {
            // A second `items` array (issue 34): said at its key, and its
            // items are read on after the first's, numbered on from them.
            let array = walk.peek() == Some(b'[');
            twice.push(list_error(location, bytes, key_at, items_twice_message(&key, list.walked, array)));
            if array {
                walk.pos += 1;
                match walk_items(&mut walk, list, location) {
                    ItemsEnd::Closed => {}
                    ItemsEnd::Interrupted => {
                        let walked = list.walked;
                        return stopped(location, bytes, walk.pos, Some(walked), out);
                    }
                    other => {
                        end = other;
                        break;
                    }
                }
            } else {
                match walk.long_value::<serde::de::IgnoredAny>() {
                    Step::Got(_) => {}
                    Step::Cut => break,
                    Step::Bad(_) if interrupt.is_triggered() => return stopped(location, bytes, walk.pos, None, out),
                    Step::Bad(_) => return Walked::Whole,
                }
            }
        } else if (key == "items" || key == "Items") && items.is_none() && walk.peek() == Some(b'[') {
            walk.pos += 1;
            let mut list = Items::default();
            let ended = walk_items(&mut walk, &mut list, location);
            // Its place among the keys (the whole document's key order).
            fields.insert(key.clone(), Value::Null);
            items = Some((key, list));
            match ended {
                ItemsEnd::Closed => {}
                ItemsEnd::Interrupted => {
                    let walked = items.map_or(0, |(_, l)| l.walked);
                    return stopped(location, bytes, walk.pos, Some(walked), out);
                }
                other => {
                    end = other;
                    break;
                }
            }
        } else {
            walk.peek();
            let at = walk.pos;
            let field = (bounds.parsed != usize::MAX).then(|| {
                super::strict::enter(super::strict::Bounds {
                    parsed: bounds.parsed.saturating_sub(used),
                    ..bounds.clone()
                })
            });
            let value = walk.long_value::<super::strict::Noted>();
            drop(field);
            match value {
                Step::Got(super::strict::Noted(noted)) => {
                    if bounds.parsed != usize::MAX {
                        used = used.saturating_add(
                            kdrift_rebalance::parsed_size::heap_bytes(key.len())
                                + kdrift_rebalance::parsed_size::parsed_bytes(&noted.value),
                        );
                    }
                    // A key twice in the List's own fields (`metadata`): said,
                    // and its items are read (a document that is no List is
                    // reported whole).
                    for d in &noted.duplicates {
                        let path = if d.path.starts_with('[') {
                            format!("{key}{}", d.path)
                        } else {
                            format!("{key}.{}", d.path)
                        };
                        twice.push(list_error(
                            location,
                            bytes,
                            at,
                            format!(
                                "{}; the List's value of `{key}` is read with the last of them, its items are loaded",
                                kdrift_rebalance::duplicate_message(&d.key, &path)
                            ),
                        ));
                    }
                    fields.insert(key, noted.value);
                }
                Step::Cut => break,
                // Stopped inside the value, where it starts.
                Step::Bad(_) if interrupt.is_triggered() => return stopped(location, bytes, walk.pos, None, out),
                // The document would take more than the cap parsed (break-it
                // 41 G3): not built, said at this value; the next document
                // is looked for after it.
                Step::Bad(Some(e)) if super::strict::is_too_large(&e.to_string()) => {
                    let message = format!("the value of `{key}`: {}", super::strict::too_large_message());
                    out.errors.push(list_error(location, bytes, at, message));
                    return Walked::Broken(at);
                }
                // A field of the List nested too deep to read (break-it 33
                // F3): skipped and said, its items are read.
                Step::Bad(Some(e)) if e.to_string().starts_with("recursion limit exceeded") => {
                    match value_end(bytes, at) {
                        Some(end) if end > at => {
                            twice.push(list_error(
                                location,
                                bytes,
                                at,
                                format!(
                                    "invalid JSON: the List's value of `{key}` is nested too deep to read (recursion \
                                     limit exceeded); it is left out, its items are loaded"
                                ),
                            ));
                            fields.remove(&key);
                            walk.pos = end;
                        }
                        _ => return Walked::Whole,
                    }
                }
                Step::Bad(e) => {
                    broken = Some(syntax_error_at(bytes, at, e.as_ref(), "expected a JSON value"));
                    break;
                }
            }
        }
        if walk.interrupted() {
            return stopped(location, bytes, walk.pos, None, out);
        }
        match walk.peek() {
            None => break,
            Some(b',') => walk.pos += 1,
            Some(b'}') => {
                walk.pos += 1;
                end = ItemsEnd::Closed;
            }
            Some(_) => {
                broken = Some((walk.pos, "invalid JSON: expected `,` or `}` after a value".to_string()));
                break;
            }
        }
    }
    if let Some((at, what)) = broken {
        let read = Read { location, bytes, start, pos: walk.pos, hint };
        return broken_fields(read, interrupt, fields, items, twice, (at, what), out);
    }
    let Some((key, list)) = items else {
        if !matches!(end, ItemsEnd::Closed) || !twice.is_empty() {
            return Walked::Whole;
        }
        let origin = Origin { location: location.to_string(), line: Some(line_of_offset(bytes, start)), item: None };
        expand_document(Value::Object(fields), origin, hint, out);
        return Walked::Read(walk.pos);
    };
    finish(Read { location, bytes, start, pos: walk.pos, hint }, fields, (key, list), end, twice, out)
}

/// What a List's second `key` (`items`) says: its items are read on after
/// the `walked` items of the first, or, when it is no `array`, it is left
/// out (kdrift issue 34: both arrays' items were lost). Shared with the
/// streamed reader (`crate::json_stream`).
pub(crate) fn items_twice_message(key: &str, walked: u64, array: bool) -> String {
    let then = if array {
        format!("the items of both are loaded, the second's numbered on from items[{walked}]")
    } else {
        "this second one is no array: it is left out, the first's items are loaded".to_string()
    };
    format!("the key {key:?} appears twice in the List; expected one: a List has one `{key}` array; {then}")
}

/// An error about the List's own fields at offset `at` of `bytes`.
fn list_error(location: &str, bytes: &[u8], at: usize, message: String) -> InputError {
    InputError {
        origin: Origin { location: location.to_string(), line: Some(line_of_offset(bytes, at)), item: None },
        column: Some(column_of(bytes, at) as u64),
        message,
    }
}

/// The offset and text of a syntax error met reading the value that
/// starts at `start` (`e`, serde's, else `expected`).
fn syntax_error_at(bytes: &[u8], start: usize, e: Option<&serde_json::Error>, expected: &str) -> (usize, String) {
    match e {
        Some(e) => (offset_of(bytes, start, e).unwrap_or(start), json_error_what(e)),
        None => (start, format!("invalid JSON: {expected}")),
    }
}

/// Reads the bare JSON array (a List without its wrapper) that opens at
/// `start` in `bytes` (a `[`) into `out` as [`read_document`] reads a List:
/// a bad item is an error naming it (`items[i]`) and the others load.
pub(super) fn read_array(
    location: &str,
    bytes: &[u8],
    start: usize,
    hint: Option<&str>,
    interrupt: &Interrupt,
    out: &mut Parsed,
) -> Walked {
    let mut walk = Walk { bytes, pos: start + 1, checked: start, interrupt };
    let mut list = Items::default();
    let end = walk_items(&mut walk, &mut list, location);
    if matches!(end, ItemsEnd::Interrupted) {
        return stopped(location, bytes, walk.pos, Some(list.walked), out);
    }
    let mut fields = Map::new();
    fields.insert("kind".into(), Value::String("List".into()));
    fields.insert("items".into(), Value::Null);
    finish(Read { location, bytes, start, pos: walk.pos, hint }, fields, ("items".into(), list), end, Vec::new(), out)
}

/// Where a document was read: its file, bytes, first byte, the offset
/// reading stopped at, and the file name's kind hint.
struct Read<'a> {
    location: &'a str,
    bytes: &'a [u8],
    start: usize,
    pos: usize,
    hint: Option<&'a str>,
}

/// Expands a List document read key by key (`fields`, with its items under
/// `key` walked into `list`, ended by `end`), with the errors of keys that
/// appear twice outside its items (`twice`).
fn finish(
    read: Read<'_>,
    mut fields: Map<String, Value>,
    (key, list): (String, Items),
    end: ItemsEnd,
    twice: Vec<InputError>,
    out: &mut Parsed,
) -> Walked {
    let Read { location, bytes, start, pos, hint } = read;
    let origin = Origin { location: location.to_string(), line: Some(line_of_offset(bytes, start)), item: None };
    let Items { values, index, starts, walked, errors: bad, errors_not_kept } = list;
    out.errors_not_kept += errors_not_kept;
    let loaded = values.len();
    let whole = matches!(end, ItemsEnd::Closed) && bad.is_empty() && twice.is_empty();
    fields.insert(key, Value::Array(values));
    let doc = Value::Object(fields);
    // Each good item's records and errors at its first line.
    let lines = super::lines_at(bytes, &starts);
    let line_of = |item: u64| index.binary_search(&item).ok().and_then(|j| lines.get(j).copied());
    let before = (out.records.len(), out.errors.len());
    if whole {
        expand_document(doc, origin, hint, out);
        super::set_item_lines(out, before, line_of);
        return Walked::Read(pos);
    }
    if !legacy::is_legacy(&doc) && !is_list(&doc) {
        return Walked::Whole;
    }
    out.errors.extend(twice);
    let before = (out.records.len(), out.errors.len());
    expand_items(doc, origin.clone(), hint, &index, bad, out);
    super::set_item_lines(out, before, line_of);
    match end {
        ItemsEnd::Closed | ItemsEnd::Unended => Walked::Read(pos.max(start + 1)),
        ItemsEnd::Cut(cut) => {
            out.errors.push(json_cut_error(bytes, origin, cut, loaded, walked));
            Walked::Read(bytes.len())
        }
        ItemsEnd::Broken(at) => {
            out.errors.push(InputError {
                origin: Origin { line: Some(line_of_offset(bytes, at)), ..origin },
                column: Some(column_of(bytes, at) as u64),
                message: format!(
                    "invalid JSON: expected `,` or `]` after the List's items[{}]; the items before are loaded, the \
                     rest of this document is not read",
                    walked.saturating_sub(1)
                ),
            });
            Walked::Broken(at)
        }
        ItemsEnd::Interrupted => Walked::Interrupted,
    }
}

/// Expands a List `doc` holding the good items of a List whose items are
/// not all good: as [`expand_document`] does, except that the good item
/// `j` keeps its index `index[j]` among all the List's items, and the
/// errors of the bad ones (`bad`) come in item order with the others.
pub(super) fn expand_items(
    doc: Value,
    origin: Origin,
    hint: Option<&str>,
    index: &[u64],
    bad: Vec<InputError>,
    out: &mut Parsed,
) {
    let (records, errors) = (out.records.len(), out.errors.len());
    expand_document(doc, origin, hint, out);
    // `expand_document` numbers the items it was given: give each its own.
    let renumber = |o: &mut Origin| {
        if let Some(i) = o.item {
            o.item = index.get(i as usize).copied().or(Some(i));
        }
    };
    out.records[records..].iter_mut().for_each(|r| renumber(&mut r.origin));
    out.errors[errors..].iter_mut().for_each(|e| renumber(&mut e.origin));
    out.errors.extend(bad);
    out.errors[errors..].sort_by_key(|e| e.origin.item.unwrap_or(u64::MAX));
    // Each of the two was kept up to the cap: the first ones of both, in
    // item order, are kept (never fewer than the errors before).
    let keep = crate::kept_errors::KEPT_ERRORS_PER_FILE.max(errors);
    if out.errors.len() > keep {
        out.errors_not_kept += (out.errors.len() - keep) as u64;
        out.errors.truncate(keep);
    }
}

/// Walks the items of a JSON array after its `[` into `list`, up to its
/// `]`, the end of the input, or a break in its syntax.
fn walk_items(walk: &mut Walk<'_>, list: &mut Items, location: &str) -> ItemsEnd {
    if walk.peek() == Some(b']') {
        walk.pos += 1;
        return ItemsEnd::Closed;
    }
    loop {
        if walk.interrupted() {
            return ItemsEnd::Interrupted;
        }
        walk.peek();
        let start = walk.pos;
        match walk.value::<super::strict::Strict>() {
            // Its `}` came early (a stray `}` or `]` in it): skipped to the
            // next item, not stored cut short (break-it 32 N4).
            // With no item after it and no key of it after its close (`}}`
            // at the List's end: a `]` missing?), it is kept and the List
            // is broken there.
            Step::Got(v) if closed_early(walk.bytes, walk.pos) => {
                walk.peek();
                let at = walk.pos;
                let next = resync(walk.bytes, start, None, list.values.last(), Some(at));
                if next.is_none() && walk.bytes[at] != b',' {
                    list.values.push(v.0);
                    list.index.push(list.walked);
                    list.starts.push(start);
                    list.walked += 1;
                    return ItemsEnd::Broken(at);
                }
                list.add_error(closed_early_item(location, walk.bytes, (start, at), list.walked, next.is_some()));
                match next {
                    Some(end) => walk.pos = end,
                    None => {
                        list.walked += 1;
                        return ItemsEnd::Broken(at);
                    }
                }
            }
            Step::Got(super::strict::Strict(v)) => {
                list.values.push(v);
                list.index.push(list.walked);
                list.starts.push(start);
            }
            Step::Cut if walk.peek().is_some() => return ItemsEnd::Cut(CutAt::Item(walk.pos)),
            Step::Cut => return ItemsEnd::Cut(CutAt::BetweenItems),
            Step::Bad(e) => {
                // `value` stopped at the item's first byte.
                let broken_at = e.as_ref().and_then(|e| offset_of(walk.bytes, start, e));
                let scanned = value_end(walk.bytes, start);
                let end = resync(walk.bytes, start, scanned, list.values.last(), broken_at);
                list.add_error(bad_item(location, walk.bytes, start, list.walked, e, end.is_none()));
                match end {
                    Some(end) => walk.pos = end,
                    None => {
                        walk.pos = walk.bytes.len();
                        return ItemsEnd::Unended;
                    }
                }
            }
        }
        list.walked += 1;
        match walk.peek() {
            None => return ItemsEnd::Cut(CutAt::BetweenItems),
            Some(b',') => walk.pos += 1,
            Some(b']') => {
                walk.pos += 1;
                return ItemsEnd::Closed;
            }
            // The next item opens where the `,` belongs (a hand edit that
            // dropped it): read on as if it were there, saying so once.
            Some(b'{') => list.add_error(missing_comma(location, walk.bytes, walk.pos, list.walked)),
            Some(_) => return ItemsEnd::Broken(walk.pos),
        }
    }
}

/// The error of item `i`, opening at `start`, whose object closes before
/// its end: text that is no `,` or `]` follows at `at`; `resynced` when
/// the next item was found after it.
fn closed_early_item(location: &str, bytes: &[u8], (start, at): (usize, usize), i: u64, resynced: bool) -> InputError {
    let then = if resynced {
        "the List's other items are loaded"
    } else {
        "no item of the List follows it: the items before it are loaded"
    };
    // Located where its text goes on, as a syntax error is (`bad_item_message`).
    let (line, opens) = (line_of_offset(bytes, at), line_of_offset(bytes, start));
    let opens = if opens == line { String::new() } else { format!(" (the item opens at line {opens})") };
    InputError {
        origin: Origin { location: location.to_string(), line: Some(line), item: Some(i) },
        column: Some(column_of(bytes, at) as u64),
        message: format!(
            "invalid JSON: the item's object is closed before its end (a stray `}}` or `]` in it?): its text goes on \
             here{opens}; this item is skipped (not stored: it would be cut short); {then}"
        ),
    }
}

/// The error of a `,` missing before item `i`, which opens at `at`.
fn missing_comma(location: &str, bytes: &[u8], at: usize, i: u64) -> InputError {
    InputError {
        origin: Origin { location: location.to_string(), line: Some(line_of_offset(bytes, at)), item: Some(i) },
        column: Some(column_of(bytes, at) as u64),
        message: format!(
            "invalid JSON: a `,` is missing between items[{}] and items[{i}]; read as if it were there (both items \
             are loaded)",
            i.saturating_sub(1)
        ),
    }
}

/// The error of item `i`, starting at `start`, that does not parse (`e`);
/// `unended` when the input holds no end for it.
fn bad_item(
    location: &str,
    bytes: &[u8],
    start: usize,
    i: u64,
    e: Option<serde_json::Error>,
    unended: bool,
) -> InputError {
    let (line, column, message) =
        bad_item_message(line_of_offset(bytes, start), column_of(bytes, start), e.as_ref(), unended);
    InputError { origin: Origin { location: location.to_string(), line: Some(line), item: Some(i) }, column, message }
}

/// What [`bad_item`] says of an item starting at `line` and `column` that
/// does not parse (`e`), and where: the error's own line and column in
/// the file when the parser names them (the item's line otherwise), so
/// that `FILE:LINE:COL` is the one position the error gives (break-it 41
/// L5: `combo.json:102: items[101]: … at line 103 column 1` named two
/// lines); the item's first line is said when the error is on another.
/// `unended` when the input holds no end for it.
pub(crate) fn bad_item_message(
    line: u64,
    column: usize,
    e: Option<&serde_json::Error>,
    unended: bool,
) -> (u64, Option<u64>, String) {
    let (at, what) = match e {
        // The parser counts from the item's start: its first line's columns from the item's column.
        Some(e) if e.line() > 0 => {
            let at_column = if e.line() == 1 { column - 1 + e.column() } else { e.column() };
            let at = match (line - 1 + e.line() as u64, at_column) {
                // Column 0: just past a line break (a string it broke): the end of the line before.
                (at_line, 0) if at_line > line => (at_line - 1, None),
                (at_line, 0) => (at_line, None),
                (at_line, at_column) => (at_line, Some(at_column as u64)),
            };
            let opens = if at.0 == line { String::new() } else { format!(" (the item opens at line {line})") };
            (at, format!("{}{opens}", json_error_what(e)))
        }
        Some(e) => ((line, None), json_error_what(e)),
        None => ((line, None), "invalid JSON".to_string()),
    };
    let then = if unended {
        "the file ends before this item's closing bracket (cut off, or a `}` missing?): it is not stored and \
         nothing after it is read; the items before it are loaded"
    } else {
        "this item is skipped (not stored); the List's other items are loaded"
    };
    (at.0, at.1, format!("{what}; {then}"))
}

/// Reports that reading stopped at `at` on an interrupt (in item `item`).
fn stopped(location: &str, bytes: &[u8], at: usize, item: Option<u64>, out: &mut Parsed) -> Walked {
    // At what comes next (the next item's line), past the blanks.
    let at = at + bytes[at..].iter().take_while(|b| b.is_ascii_whitespace()).count();
    out.errors.push(InputError {
        origin: Origin { location: location.to_string(), line: Some(line_of_offset(bytes, at)), item },
        column: None,
        message: STOPPED.to_string(),
    });
    Walked::Interrupted
}

/// The 1-based column (in bytes) of offset `pos`.
fn column_of(bytes: &[u8], pos: usize) -> usize {
    pos - bytes[..pos].iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1) + 1
}

#[cfg(test)]
mod tests;
