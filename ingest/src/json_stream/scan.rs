//! The byte-level walk of a stream of JSON documents read from a reader:
//! each document's top-level keys with their values' bytes, and the
//! values of its `items` array one at a time, so that no more than one
//! value is ever held (the state machine steps over strings and their
//! escapes and counts brackets; it does not check the JSON, which the
//! caller parses value by value). Lines and columns are counted as the
//! bytes go by, for the errors.

use std::io::{self, BufRead};

/// The longest value held, bytes: a longer item or field is no Kubernetes
/// object (etcd refuses values over 1.5 MiB by default) and leaves the
/// file to the whole-file reader ([`Ended::Odd`]).
pub(crate) const MAX_VALUE_BYTES: usize = crate::ndjson_stream::MAX_LINE_BYTES;

/// What the walk tells its caller, in file order; each call returns false
/// to stop the walk ([`Ended::Stopped`]).
pub(crate) trait Sink {
    /// A document opens (`{`) on `line`.
    fn document(&mut self, line: u64) -> bool;
    /// A top-level key and its value's bytes (not the items).
    fn field(&mut self, key: String, value: Vec<u8>) -> bool;
    /// The `items` array opens, under `key` (its first byte at `line` and
    /// `column`); `again` for a second array under the same key in one
    /// document, whose items are numbered on after the first's.
    fn items(&mut self, key: &str, again: bool, line: u64, column: u64) -> bool;
    /// Item `index`, starting at `line` and `column`, whole.
    fn item(&mut self, index: u64, line: u64, column: u64, value: &[u8]) -> bool;
    /// The document closes (`}`).
    fn end(&mut self) -> bool;
}

/// Where the input ended inside a document.
#[derive(Debug)]
pub(crate) enum Cut {
    /// Before its `items` opened (or in a document without them).
    BeforeItems,
    /// Inside item `index`, which starts at `line` (its bytes so far are the `partial`).
    Item { index: u64, line: u64 },
    /// Between items (or before the first, or after the last without `]`),
    /// after `walked` of them.
    BetweenItems { walked: u64 },
    /// After the items' `]`, before the document's `}`.
    AfterItems,
}

/// How the walk ended.
#[derive(Debug)]
pub(crate) enum Ended {
    /// At the end of the input, between documents.
    End,
    /// The input ends inside a document; `partial` is the bytes of the key
    /// or value it ends in (empty between them).
    Cut { cut: Cut, partial: Vec<u8>, last_line: u64 },
    /// Something this walk does not read (not an object, a missing `,`, a
    /// value too long, a read error): why.
    Odd(String),
    /// The sink stopped it.
    Stopped,
}

/// A reader walked byte by byte, counting lines and columns.
pub(crate) struct Scanner<R: BufRead> {
    reader: R,
    /// 1-based line of the next byte.
    pub(crate) line: u64,
    /// 1-based column (in bytes) of the next byte.
    pub(crate) column: u64,
}

/// How one value's capture ended.
enum Captured {
    Whole,
    Cut,
    TooLong,
}

impl<R: BufRead> Scanner<R> {
    pub(crate) fn new(reader: R) -> Self {
        Scanner { reader, line: 1, column: 1 }
    }

    /// The next byte that is not a blank, not taken; `None` at the end.
    fn peek(&mut self) -> io::Result<Option<u8>> {
        loop {
            let buf = self.reader.fill_buf()?;
            if buf.is_empty() {
                return Ok(None);
            }
            let blanks = buf.iter().take_while(|b| b.is_ascii_whitespace()).count();
            let next = buf.get(blanks).copied();
            for b in &buf[..blanks] {
                if *b == b'\n' {
                    self.line += 1;
                    self.column = 1;
                } else {
                    self.column += 1;
                }
            }
            self.reader.consume(blanks);
            if next.is_some() {
                return Ok(next);
            }
        }
    }

    fn count(&mut self, b: u8) {
        if b == b'\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
    }

    /// Takes the byte [`Scanner::peek`] returned.
    fn take(&mut self, b: u8) {
        self.count(b);
        self.reader.consume(1);
    }

    /// Skips a UTF-8 byte-order mark at the start.
    fn skip_bom(&mut self) -> io::Result<()> {
        if self.reader.fill_buf()?.starts_with(b"\xEF\xBB\xBF") {
            self.reader.consume(3);
        }
        Ok(())
    }

    /// Appends the next value's bytes to `out` (which it clears first):
    /// an object or array to its closing bracket, a string to its closing
    /// quote, a scalar to the byte before a delimiter.
    fn capture(&mut self, out: &mut Vec<u8>) -> io::Result<Captured> {
        out.clear();
        let (mut depth, mut in_string, mut escaped, mut scalar, mut started) = (0usize, false, false, false, false);
        loop {
            let buf = self.reader.fill_buf()?;
            if buf.is_empty() {
                return Ok(Captured::Cut);
            }
            let mut used = 0;
            let mut done = false;
            for &b in buf {
                if !started {
                    started = true;
                    match b {
                        b'{' | b'[' => depth = 1,
                        b'"' => in_string = true,
                        _ => scalar = true,
                    }
                } else if in_string {
                    if escaped {
                        escaped = false;
                    } else if b == b'\\' {
                        escaped = true;
                    } else if b == b'"' {
                        in_string = false;
                        done = depth == 0;
                    }
                } else if scalar {
                    if matches!(b, b',' | b'}' | b']') || b.is_ascii_whitespace() {
                        done = true;
                        break; // the delimiter is not the value's
                    }
                } else {
                    match b {
                        b'"' => in_string = true,
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            done = depth == 0;
                        }
                        _ => {}
                    }
                }
                used += 1;
                if done {
                    break;
                }
            }
            let taken = &buf[..used];
            let newlines = taken.iter().filter(|b| **b == b'\n').count() as u64;
            if newlines > 0 {
                self.line += newlines;
                self.column = (used - taken.iter().rposition(|b| *b == b'\n').unwrap_or(0)) as u64;
            } else {
                self.column += used as u64;
            }
            out.extend_from_slice(taken);
            self.reader.consume(used);
            if done {
                return Ok(Captured::Whole);
            }
            if out.len() > MAX_VALUE_BYTES {
                return Ok(Captured::TooLong);
            }
        }
    }
}

/// Walks every document of `scanner` into `sink`.
pub(crate) fn walk<R: BufRead>(scanner: &mut Scanner<R>, sink: &mut impl Sink) -> Ended {
    match walk_documents(scanner, sink) {
        Ok(ended) => ended,
        Err(e) => Ended::Odd(format!("read error: {e}")),
    }
}

fn walk_documents<R: BufRead>(s: &mut Scanner<R>, sink: &mut impl Sink) -> io::Result<Ended> {
    s.skip_bom()?;
    let mut value = Vec::new();
    loop {
        match s.peek()? {
            None => return Ok(Ended::End),
            Some(b'{') => {}
            Some(b) => return Ok(Ended::Odd(format!("a document opens with {:?}", b as char))),
        }
        if !sink.document(s.line) {
            return Ok(Ended::Stopped);
        }
        s.take(b'{');
        let mut items_seen = false;
        // The items' key once met, and the items walked (over both arrays
        // of a List with its `items` twice: issue 34).
        let (mut items_key, mut walked) = (None::<String>, 0u64);
        let cut_outside = |items_seen: bool, partial: Vec<u8>, line: u64| Ended::Cut {
            cut: if items_seen { Cut::AfterItems } else { Cut::BeforeItems },
            partial,
            last_line: line,
        };
        match s.peek()? {
            None => return Ok(cut_outside(items_seen, Vec::new(), s.line)),
            Some(b'}') => {
                s.take(b'}');
                if !sink.end() {
                    return Ok(Ended::Stopped);
                }
                continue;
            }
            Some(_) => {}
        }
        loop {
            match s.peek()? {
                None => return Ok(cut_outside(items_seen, Vec::new(), s.line)),
                Some(b'"') => {}
                Some(_) => return Ok(Ended::Odd("a key is not a string".into())),
            }
            let (key_line, key_column) = (s.line, s.column);
            match s.capture(&mut value)? {
                Captured::Whole => {}
                Captured::Cut => return Ok(cut_outside(items_seen, value, s.line)),
                Captured::TooLong => return Ok(Ended::Odd("a key too long".into())),
            }
            let Ok(key) = serde_json::from_slice::<String>(&value) else {
                return Ok(Ended::Odd("a key that does not parse".into()));
            };
            match s.peek()? {
                None => return Ok(cut_outside(items_seen, Vec::new(), s.line)),
                Some(b':') => s.take(b':'),
                Some(_) => return Ok(Ended::Odd("no `:` after a key".into())),
            }
            let next = s.peek()?;
            if next.is_none() {
                return Ok(cut_outside(items_seen, Vec::new(), s.line));
            }
            let again = items_key.as_deref() == Some(key.as_str());
            if (key == "items" || key == "Items") && (!items_seen || again) && next == Some(b'[') {
                items_seen = true;
                s.take(b'[');
                if !sink.items(&key, again, key_line, key_column) {
                    return Ok(Ended::Stopped);
                }
                items_key = Some(key);
                if let Some(ended) = walk_items(s, sink, &mut value, &mut walked)? {
                    return Ok(ended);
                }
            } else {
                match s.capture(&mut value)? {
                    Captured::Whole => {}
                    Captured::Cut => return Ok(cut_outside(items_seen, value, s.line)),
                    Captured::TooLong => return Ok(Ended::Odd(format!("the value of `{key}` is too long"))),
                }
                if !sink.field(key, std::mem::take(&mut value)) {
                    return Ok(Ended::Stopped);
                }
            }
            match s.peek()? {
                None => return Ok(cut_outside(items_seen, Vec::new(), s.line)),
                Some(b',') => s.take(b','),
                Some(b'}') => {
                    s.take(b'}');
                    break;
                }
                Some(_) => return Ok(Ended::Odd("no `,` or `}` after a value".into())),
            }
        }
        if !sink.end() {
            return Ok(Ended::Stopped);
        }
    }
}

/// Walks the items after the `[`, numbered from `index` (the items walked
/// before, which it counts on); `None` once past the `]`.
fn walk_items<R: BufRead>(
    s: &mut Scanner<R>,
    sink: &mut impl Sink,
    value: &mut Vec<u8>,
    index: &mut u64,
) -> io::Result<Option<Ended>> {
    let between =
        |walked: u64, line: u64| Ended::Cut { cut: Cut::BetweenItems { walked }, partial: Vec::new(), last_line: line };
    match s.peek()? {
        None => return Ok(Some(between(*index, s.line))),
        Some(b']') => {
            s.take(b']');
            return Ok(None);
        }
        Some(_) => {}
    }
    loop {
        if s.peek()?.is_none() {
            return Ok(Some(between(*index, s.line)));
        }
        let (line, column) = (s.line, s.column);
        match s.capture(value)? {
            Captured::Whole => {}
            Captured::Cut => {
                let cut = Cut::Item { index: *index, line };
                return Ok(Some(Ended::Cut { cut, partial: std::mem::take(value), last_line: s.line }));
            }
            Captured::TooLong => return Ok(Some(Ended::Odd(format!("items[{}] is too long", *index)))),
        }
        if !sink.item(*index, line, column, value) {
            return Ok(Some(Ended::Stopped));
        }
        *index += 1;
        match s.peek()? {
            None => return Ok(Some(between(*index, s.line))),
            Some(b',') => s.take(b','),
            Some(b']') => {
                s.take(b']');
                return Ok(None);
            }
            Some(_) => return Ok(Some(Ended::Odd(format!("no `,` or `]` after items[{}]", *index - 1)))),
        }
    }
}
