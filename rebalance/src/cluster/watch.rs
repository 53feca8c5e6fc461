//! One watch request (`?watch=1`) on any [`ResourceKind`] as a stream of
//! [`WatchItem`]s with raw `serde_json::Value` objects. It ends when the
//! server closes the response (timeout, dropped connection): the caller
//! resumes from the last resourceVersion it saw, and lists again when the
//! server answers 410 Gone ([`ClusterError::is_gone`]). Shared by
//! `kdrift record` and the rebalance executor (which watches evicted pods go).
//!
//! The stream is cut into JSON values here, as client-go's stream decoder
//! reads it (issue 34), not strictly one per line: `{…}{…}` on one line,
//! an event pretty-printed over several lines, a bare `\r` between events
//! are all read. A value is looked for once its line has ended (the server
//! ends each event with `\n`), so a huge event is scanned once. A value
//! that is not a watch event (not UTF-8, not JSON, no known `type`), or
//! text between events that is no JSON value (` trailing` after an event),
//! is a [`ClusterError::BadEvent`] naming the line it starts on, and the
//! stream goes on after it: a value broken inside ends at its line's end
//! (or before the next line when the break is at that line's start), so
//! the next event is read; a value left open on its line (an unclosed
//! `{` or `[`) ends before the next line that opens a value at its first
//! byte, which is read again as the next event. Only JSON's blanks (space,
//! tab, `\r`, `\n`) are skipped between events: NUL bytes (a crashed
//! writer's padding, the rest of a UTF-16 line) or a form feed are text
//! between events, an error of their own, and the event after them is read
//! (break-it 41 G8: a line of NULs was skipped silently, where an NDJSON
//! file's is an input error; client-go's decoder fails on it). Only a broken
//! connection or a server silent for longer than the watch's
//! `timeoutSeconds` plus [`Deadlines::idle`] ends the stream with an error.
//!
//! Each byte is looked at a bounded number of times whatever the event's
//! size (break-it 35 F22: the search for a line end started again at the
//! value's first byte for every chunk, 8 MiB cost 9 s of CPU and 10 × 60 MiB
//! were never stored), and no event longer than
//! [`WatchOptions::max_event_bytes`] ([`MAX_WATCH_EVENT_BYTES`], 64 MiB) is
//! held: its bytes are dropped as they arrive up to its line's end, and it
//! is a [`ClusterError::BadEvent`] ([`BadEventKind::TooLong`]) naming the
//! resource, the line and the limit; the watch goes on with the next line.
//! Nor is one whose value would take more than
//! [`PARSED_BYTES_PER_EVENT_BYTE`] (16) times that cap and 1 MiB parsed
//! ([`parsed_event_limit`], [`crate::parsed_size`]; break-it 37 F9: 15 MiB of `[0,0,…]` take
//! 540 to 1080 MiB as values): it is parsed up to that and given up, its
//! object [`WatchItem::Refused`] by name and the limit.

use std::time::Duration;

use futures::stream::{BoxStream, StreamExt};
use http_body_util::{BodyDataStream, BodyExt};
use kube::api::WatchParams;
use kube::client::Body;
use kube::Client;
use serde_json::Value;

use super::answer::Deadlines;
use super::error::{BadEventKind, ClusterError};
use super::page::json_type;
use super::resource::{ResourceKind, Scope};
use crate::strict_json::{duplicate_message, ParseError};

/// The watch length assumed when none is asked for: the apiserver's
/// longest default (`--min-request-timeout` 1800 s, doubled at random).
const SERVER_DEFAULT_WATCH_SECONDS: u32 = 3600;

/// The longest watch event read, bytes, by default: 64 MiB, the line cap
/// of NDJSON files (`kdrift_ingest::MAX_LINE_BYTES`) and far above any
/// Kubernetes object (etcd refuses values over 1.5 MiB by default). A
/// longer event is never held whole: it is an error naming the resource
/// and the limit, and the watch goes on after it.
pub const MAX_WATCH_EVENT_BYTES: usize = 64 << 20;

/// The most bytes a watch event's value may take parsed, per byte of the
/// event cap ([`WatchOptions::max_event_bytes`]; [`crate::parsed_size`]):
/// real objects take 6 to 9 times their JSON text (the pods, nodes and
/// events of `shared/fixtures/real`; tiny ones up to 14), `[0,0,…]` 36 to
/// 72 times (break-it 37 F9).
pub const PARSED_BYTES_PER_EVENT_BYTE: usize = 16;

/// The most bytes a watch event's value may take parsed under an event cap
/// of `max_event_bytes`: [`PARSED_BYTES_PER_EVENT_BYTE`] times it, plus
/// 1 MiB (a small event's fixed share: a 74-byte Pod takes 1.3 KB parsed).
pub fn parsed_event_limit(max_event_bytes: usize) -> usize {
    max_event_bytes.saturating_mul(PARSED_BYTES_PER_EVENT_BYTE).saturating_add(1 << 20)
}

/// Bytes taken from a watch's buffer past which they are freed at once
/// ([`Lines::release`]), not at the next chunk.
const RELEASE_BYTES: usize = 1 << 20;

/// Where and how long to watch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchOptions {
    /// Start after this resourceVersion (a list's, or the last event's).
    pub resource_version: String,
    /// Ask the server to end the watch after this many seconds (the server
    /// may end it earlier); `None`: the server's default.
    pub timeout_seconds: Option<u32>,
    /// Ask for BOOKMARK events (`allowWatchBookmarks=true`).
    pub bookmarks: bool,
    /// The wait for the answer's headers; the wait for the next bytes is
    /// `timeout_seconds` (else 3600 s) plus its `idle`.
    pub deadlines: Deadlines,
    /// The longest event read, bytes ([`MAX_WATCH_EVENT_BYTES`] by
    /// default): a longer one is skipped as it arrives and is a
    /// [`ClusterError::BadEvent`] of kind [`BadEventKind::TooLong`]; one
    /// whose value takes more than [`parsed_event_limit`] of it parsed
    /// ([`crate::parsed_size`]) is [`WatchItem::Refused`].
    pub max_event_bytes: usize,
}

/// One event of a watch, objects completed with `kind` and `apiVersion`.
#[derive(Debug, Clone, PartialEq)]
pub enum WatchItem {
    /// ADDED: a new object (or one the watch had not seen).
    Added(Value),
    /// MODIFIED: a new version.
    Modified(Value),
    /// DELETED: the object's last state before it was removed.
    Deleted(Value),
    /// ADDED, MODIFIED or DELETED of an object holding a key twice at any
    /// depth (issue 34), or taking more than
    /// [`parsed_event_limit`] of [`WatchOptions::max_event_bytes`] parsed
    /// (break-it 37 F9): an input
    /// error, not to be stored.
    Refused {
        /// The object's resourceVersion (to resume from).
        resource_version: String,
        /// `namespace/name: the key … appears twice … (at path; …)`.
        message: String,
    },
    /// BOOKMARK: nothing changed up to this resourceVersion.
    Bookmark {
        /// The resourceVersion to resume from.
        resource_version: String,
    },
}

impl WatchItem {
    /// The object's `metadata.resourceVersion`, or the bookmark's.
    pub fn resource_version(&self) -> Option<&str> {
        match self {
            WatchItem::Added(o) | WatchItem::Modified(o) | WatchItem::Deleted(o) => {
                o.pointer("/metadata/resourceVersion").and_then(Value::as_str)
            }
            WatchItem::Bookmark { resource_version } | WatchItem::Refused { resource_version, .. } => {
                Some(resource_version)
            }
        }
    }
}

/// Starts a watch of `resource` in `scope`.
///
/// # Errors
/// Starting: [`ClusterError::Api`] (410 Gone when the resourceVersion is too
/// old, 403, 404), [`ClusterError::Transport`], [`ClusterError::Timeout`].
/// In the stream: an ERROR event becomes [`ClusterError::Api`] (the real
/// apiserver reports a too old resourceVersion this way, as 410 `Expired`)
/// and a line that is not a watch event [`ClusterError::BadEvent`], after
/// either the stream goes on; a broken connection
/// ([`ClusterError::Transport`]) or a silent server
/// ([`ClusterError::Timeout`]) ends it.
pub async fn watch(
    client: &Client,
    resource: &ResourceKind,
    scope: &Scope,
    options: &WatchOptions,
) -> Result<BoxStream<'static, Result<WatchItem, ClusterError>>, ClusterError> {
    let name = resource.name();
    let path = resource.collection_path(scope);
    let mut params = WatchParams { bookmarks: options.bookmarks, ..WatchParams::default() };
    if let Some(t) = options.timeout_seconds {
        params = params.timeout(t);
    }
    let mut request = kube::core::Request::new(path.clone())
        .watch(&params, &options.resource_version)
        .map_err(|source| ClusterError::Request { resource: name.clone(), path: path.clone(), source })?;
    // One gzip member per event is not decoded by kube's middleware (as
    // kube's own `request_events`).
    request.headers_mut().insert(http::header::ACCEPT_ENCODING, http::HeaderValue::from_static("identity"));
    let deadlines = &options.deadlines;
    let response = super::answer::send(client, request, &name, &path, deadlines, "the watch's answer").await?;
    let seconds = options.timeout_seconds.unwrap_or(SERVER_DEFAULT_WATCH_SECONDS);
    let lines = Lines {
        data: response.into_body().into_data_stream(),
        buffer: Vec::new(),
        head: 0,
        scanned: 0,
        skipping: None,
        max_event: options.max_event_bytes,
        line: 0,
        ended: false,
        idle: Duration::from_secs(u64::from(seconds)) + deadlines.idle,
        deadlines: deadlines.clone(),
        resource: name,
        path,
        kind: resource.kind,
        api_version: resource.api_version(),
    };
    let stream = futures::stream::unfold(lines, |mut lines| async move { lines.next().await.map(|i| (i, lines)) });
    Ok(stream.boxed())
}

/// The [`WatchItem::Refused`] of an object holding a key twice (`path`
/// inside the object).
fn refused(object: &Value, key: &str, path: &str) -> WatchItem {
    let text = |pointer: &str| object.pointer(pointer).and_then(Value::as_str).unwrap_or("").to_string();
    let (namespace, name) = (text("/metadata/namespace"), text("/metadata/name"));
    WatchItem::Refused {
        resource_version: text("/metadata/resourceVersion"),
        message: format!("{namespace}/{name}: {}; this version is not stored", duplicate_message(key, path)),
    }
}

/// `bytes` as messages say a limit: `16 MiB`, `1000 bytes`.
fn bytes_text(bytes: usize) -> String {
    if bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

/// What [`Lines::too_large`] reads of an event: its object's name and
/// version (the rest skipped unbuilt).
#[derive(Default, serde::Deserialize)]
#[serde(default)]
struct EventHead {
    object: ObjectHead,
}

/// An object's metadata, as [`EventHead`] reads it.
#[derive(Default, serde::Deserialize)]
#[serde(default)]
struct ObjectHead {
    metadata: MetadataHead,
}

/// The names [`Lines::too_large`] gives.
#[derive(Default, serde::Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct MetadataHead {
    namespace: String,
    name: String,
    resource_version: String,
}

/// A watch response read value by value.
struct Lines {
    data: BodyDataStream<Body>,
    /// Bytes received; those before `head` are taken (dropped when the
    /// next chunk arrives, so that taking a value moves no bytes).
    buffer: Vec<u8>,
    /// Where the unread bytes of `buffer` start.
    head: usize,
    /// How far past `head` the unread bytes are known to hold no `\n`
    /// (the next search for a line end starts there: each byte is searched once).
    scanned: usize,
    /// An event longer than `max_event` being dropped up to its line's
    /// end: the line it starts on and its bytes so far.
    skipping: Option<(u64, u64)>,
    /// The longest event held, bytes ([`WatchOptions::max_event_bytes`]).
    max_event: usize,
    /// Lines taken so far (the next value starts on line `line + 1`).
    line: u64,
    /// The body ended (or failed): what is left in `buffer` is the last line.
    ended: bool,
    /// The longest wait for the next bytes.
    idle: Duration,
    deadlines: Deadlines,
    resource: String,
    path: String,
    kind: &'static str,
    api_version: String,
}

/// What the bytes before a line end hold next.
enum Frame {
    /// A value (or text that is none) of this many bytes.
    Take(usize),
    /// A value that goes on past them: wait for the next line.
    More,
}

/// Blanks between values: JSON's (RFC 8259 §2), no other.
fn blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

impl Lines {
    /// The unread bytes.
    fn unread(&self) -> &[u8] {
        &self.buffer[self.head..]
    }

    async fn next(&mut self) -> Option<Result<WatchItem, ClusterError>> {
        loop {
            if self.skipping.is_some() {
                if let Some(err) = self.skip_long() {
                    return Some(Err(err));
                }
            } else {
                let skip = self.unread().iter().take_while(|b| blank(**b)).count();
                self.take(skip);
                self.scanned = self.scanned.saturating_sub(skip);
                let unread = self.unread();
                let line_end = unread[self.scanned..].iter().position(|b| *b == b'\n');
                let len = unread.len();
                let limit = match line_end {
                    Some(at) => Some(self.scanned + at + 1),
                    None if self.ended => Some(len),
                    None => None,
                };
                if let Some(limit) = limit.filter(|_| len > 0) {
                    let content = limit - usize::from(unread[limit - 1] == b'\n');
                    if content > self.max_event {
                        // The line (the value from its first byte) is over the cap.
                        let line = self.line + 1;
                        self.take(limit);
                        self.scanned = 0;
                        self.release();
                        return Some(Err(self.too_long(line, content as u64)));
                    }
                    match self.frame(limit) {
                        Frame::Take(n) => {
                            let line = self.line + 1;
                            self.take(n);
                            self.scanned = 0;
                            let item = self.decode(&self.buffer[self.head - n..self.head], line);
                            self.release();
                            match item {
                                Some(item) => return Some(item),
                                None => continue,
                            }
                        }
                        Frame::More => self.scanned = limit,
                    }
                    if limit < len {
                        continue;
                    }
                } else {
                    // No line end in what is unread: the next search starts after it.
                    self.scanned = len;
                    if len > self.max_event {
                        // Over the cap before its line ends: dropped from here on.
                        let line = self.line + 1;
                        self.take(len);
                        self.scanned = 0;
                        self.release();
                        self.skipping = Some((line, len as u64));
                        continue;
                    }
                }
            }
            if self.ended {
                return None;
            }
            match tokio::time::timeout(self.idle, self.data.next()).await {
                Err(_) => {
                    self.end();
                    let what = "the next watch event (timeoutSeconds and the request timeout)";
                    return Some(Err(self.deadlines.timeout(&self.resource, &self.path, self.idle, what)));
                }
                Ok(None) => self.ended = true,
                Ok(Some(Ok(chunk))) => {
                    // The bytes taken go now: one move of what is left, per chunk.
                    if self.head > 0 {
                        self.buffer.drain(..self.head);
                        self.head = 0;
                    }
                    self.buffer.extend_from_slice(&chunk);
                }
                Ok(Some(Err(e))) => {
                    self.end();
                    return Some(Err(ClusterError::from_kube(&self.resource, &self.path, e)));
                }
            }
        }
    }

    /// Frees the bytes taken once they weigh [`RELEASE_BYTES`]: a big
    /// event's text is not held (twice its size, the buffer having grown
    /// by doubling) while its object waits to be stored (break-it 36 F3).
    /// Smaller values stay until the next chunk (no move per value).
    fn release(&mut self) {
        if self.head < RELEASE_BYTES {
            return;
        }
        self.buffer.drain(..self.head);
        self.head = 0;
        if self.buffer.capacity() > RELEASE_BYTES.max(2 * self.buffer.len()) {
            self.buffer.shrink_to(self.buffer.len().max(64 << 10));
        }
    }

    /// Drops the unread bytes of an event over the cap up to its line's
    /// end (or the body's): its error once the end is reached.
    fn skip_long(&mut self) -> Option<ClusterError> {
        let (line, held) = self.skipping?;
        let unread = self.unread();
        let (dropped, newline) = match unread.iter().position(|b| *b == b'\n') {
            Some(at) => (at, true),
            None => (unread.len(), false),
        };
        let len = held + dropped as u64;
        self.take(dropped + usize::from(newline));
        if !newline && !self.ended {
            self.skipping = Some((line, len));
            return None;
        }
        self.skipping = None;
        self.scanned = 0;
        self.release();
        Some(self.too_long(line, len))
    }

    /// The cap, as messages say it (`16 MiB`, `1000 bytes`).
    fn limit_text(&self) -> String {
        bytes_text(self.max_event)
    }

    /// An event within the cap as text whose value would take more than
    /// [`parsed_event_limit`] of it parsed (break-it 37 F9:
    /// `[0,0,…]` takes 36 to 72 times its text):
    /// not held, its object refused by name ([`WatchItem::Refused`]: the
    /// watch resumes after its resourceVersion), read from the text
    /// without building it.
    fn too_large(&self, text: &str) -> Result<WatchItem, ClusterError> {
        let head: EventHead = serde_json::from_str(text).unwrap_or_default();
        let m = head.object.metadata;
        let message = format!(
            "{}/{}: an event of {} bytes whose object takes more than {} parsed ({PARSED_BYTES_PER_EVENT_BYTE} times \
             the {} kdrift reads in one watch event, and 1 MiB; JSON numbers and short strings take many times their \
             text as values); this version is not stored",
            m.namespace,
            m.name,
            text.len(),
            bytes_text(parsed_event_limit(self.max_event)),
            self.limit_text()
        );
        Ok(WatchItem::Refused { resource_version: m.resource_version, message })
    }

    /// The error of an event over the cap, `len` bytes long, starting on `line`.
    fn too_long(&self, line: u64, len: u64) -> ClusterError {
        let limit = self.limit_text();
        ClusterError::BadEvent {
            resource: self.resource.clone(),
            url: format!("{}{}", self.deadlines.server, self.path),
            line,
            kind: BadEventKind::TooLong,
            problem: format!(
                "an event of {len} bytes, more than the {limit} kdrift reads in one watch event (not held; its \
                 object is not stored)"
            ),
        }
    }

    /// Takes the next `n` unread bytes, counting their lines.
    fn take(&mut self, n: usize) {
        let taken = &self.buffer[self.head..self.head + n];
        self.line += taken.iter().filter(|b| **b == b'\n').count() as u64;
        self.head += n;
    }

    /// What the buffer holds before `limit` (a line end, or the end of the
    /// body), from its first byte (no blank).
    fn frame(&self, limit: usize) -> Frame {
        let bytes = &self.unread()[..limit];
        let line_end = |from: usize| bytes[from..].iter().position(|b| *b == b'\n').map_or(limit, |i| from + i + 1);
        if bytes[0] != b'{' && bytes[0] != b'[' {
            // Text that is no value: up to the next `{` or its line's end.
            let end = line_end(0);
            return Frame::Take(bytes[..end].iter().position(|b| *b == b'{').unwrap_or(end));
        }
        let mut values = serde_json::Deserializer::from_slice(bytes).into_iter::<serde::de::IgnoredAny>();
        let e = match values.next() {
            Some(Ok(_)) => return Frame::Take(values.byte_offset()),
            None => return Frame::Take(limit),
            Some(Err(e)) if e.is_eof() => {
                return if self.ended && limit == self.unread().len() { Frame::Take(limit) } else { Frame::More }
            }
            Some(Err(e)) => e,
        };
        // Broken inside: the value ends at the end of the line it breaks
        // on, or before that line when it breaks at its first byte (the
        // next event opens there).
        let mut start = 0;
        for _ in 1..e.line() {
            start = line_end(start);
        }
        let at = (start + e.column().saturating_sub(1)).min(limit);
        // Broken on its first line, before the next event of that line
        // (`{…}{…}`, as client-go reads): it ends where that event opens,
        // so that the line's events after it are read (break-it 42 H5: a
        // cut event lost every event after it on its line).
        let is_event = |o: &serde_json::Map<String, Value>| o.contains_key("type") && o.contains_key("object");
        if e.line() == 1 {
            if let Some(next) = crate::swallowed::next_value_on_line(&bytes[..line_end(0)], 0, at, is_event) {
                return Frame::Take(next);
            }
        }
        let first = start + bytes[start..].iter().take_while(|b| blank(**b)).count();
        let end = if start > 0 && at <= first { start } else { line_end(at.min(limit - 1)) };
        // A value left open on its first line (an unclosed `{` or `[`) took
        // the next event in as a member: it ends before the first later
        // line that opens a value at its first byte, read again from there
        // (break-it 34 H4: the event after it was lost). An event's own
        // pretty-printed lines are indented, or close it.
        let mut next = line_end(0);
        while next < end {
            if matches!(bytes[next], b'{' | b'[') {
                return Frame::Take(next);
            }
            next = line_end(next);
        }
        Frame::Take(end)
    }

    /// Ends the stream: nothing more is read or returned.
    fn end(&mut self) {
        self.ended = true;
        self.buffer.clear();
        self.head = 0;
        self.skipping = None;
    }

    /// One value (starting on line `at`) as a watch item; `None` for blanks.
    fn decode(&self, line: &[u8], at: u64) -> Option<Result<WatchItem, ClusterError>> {
        let start = line.iter().position(|b| !blank(*b))?;
        let end = line.iter().rposition(|b| !blank(*b)).map_or(start, |e| e + 1);
        let line = &line[start..end];
        let bad = |kind: BadEventKind, problem: String| {
            Some(Err(ClusterError::BadEvent {
                resource: self.resource.clone(),
                url: format!("{}{}", self.deadlines.server, self.path),
                line: at,
                kind,
                problem: crate::redact::held().redact(&problem),
            }))
        };
        let text = match std::str::from_utf8(line) {
            Ok(t) => t,
            Err(e) => return bad(BadEventKind::NotUtf8, format!("not UTF-8 (byte {} of the line)", e.valid_up_to())),
        };
        if !line.starts_with(b"{") && !line.starts_with(b"[") {
            let shown: String = text.chars().take(40).collect();
            return bad(BadEventKind::NotJson, format!("not JSON (text between events: {shown:?})"));
        }
        let (event, duplicates) = match crate::parse_within(text, parsed_event_limit(self.max_event)) {
            Ok(parsed) => parsed,
            Err(ParseError::Json(e)) => {
                let what = crate::json_error_text(&e);
                return bad(BadEventKind::NotJson, format!("not JSON ({what} at column {})", e.column()));
            }
            Err(ParseError::TooLarge { .. }) => return Some(self.too_large(text)),
        };
        // A key twice at the event's top (`type` or `object` twice): which
        // event is meant is unknown, the line is skipped (break-it 33 F8).
        if let Some(d) = duplicates.iter().find(|d| !d.path.contains(['.', '['])) {
            return bad(BadEventKind::NotAnEvent, format!("an event in which {}", duplicate_message(&d.key, &d.path)));
        }
        let mut event = match event {
            Value::Object(event) => event,
            other => return bad(BadEventKind::NotAnEvent, format!("{} instead of an object", json_type(&other))),
        };
        let object = event.remove("object");
        let kind = event.get("type").and_then(Value::as_str);
        // Issue 34 C: a key twice inside the object refuses that version.
        let twice = duplicates.iter().find_map(|d| d.path.strip_prefix("object.").map(|path| (d, path)));
        if let (Some((d, path)), Some("ADDED" | "MODIFIED" | "DELETED"), Some(o)) = (twice, kind, object.as_ref()) {
            return Some(Ok(refused(o, &d.key, path)));
        }
        match (kind, object) {
            (Some(t @ ("ADDED" | "MODIFIED" | "DELETED")), Some(Value::Object(mut o))) => {
                o.entry("kind").or_insert_with(|| Value::String(self.kind.to_string()));
                o.entry("apiVersion").or_insert_with(|| Value::String(self.api_version.clone()));
                let o = Value::Object(o);
                Some(Ok(match t {
                    "ADDED" => WatchItem::Added(o),
                    "MODIFIED" => WatchItem::Modified(o),
                    _ => WatchItem::Deleted(o),
                }))
            }
            (Some("BOOKMARK"), Some(o)) => match o.pointer("/metadata/resourceVersion").and_then(Value::as_str) {
                Some(rv) => Some(Ok(WatchItem::Bookmark { resource_version: rv.to_string() })),
                None => bad(BadEventKind::NotAnEvent, "a BOOKMARK without object.metadata.resourceVersion".into()),
            },
            (Some("ERROR"), Some(o)) => Some(Err(self.status(o))),
            // A bare Status line (kube's client reads it as an error too).
            (None, None) if event.get("kind").and_then(Value::as_str) == Some("Status") => {
                Some(Err(self.status(Value::Object(event))))
            }
            (Some(t @ ("ADDED" | "MODIFIED" | "DELETED")), Some(o)) => {
                bad(BadEventKind::NotAnEvent, format!("a {t} event whose object is {}", json_type(&o)))
            }
            (Some(t), Some(_)) => bad(BadEventKind::NotAnEvent, format!("an event of unknown type {t:?}")),
            (Some(t), None) => bad(BadEventKind::NotAnEvent, format!("a {t:?} event without an object")),
            (None, _) => bad(BadEventKind::NotAnEvent, "a JSON object without a `type`".into()),
        }
    }

    /// The [`ClusterError::Api`] of an ERROR event's Status.
    fn status(&self, object: Value) -> ClusterError {
        let status = serde_json::from_value::<kube::core::Status>(object.clone())
            .unwrap_or_else(|_| kube::core::Status::failure(&object.to_string(), "").with_code(500));
        ClusterError::status(&self.resource, &self.path, &status)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 34 C: a key twice in a watch event's object refuses that
    /// version, whichever of the event's keys comes first.
    #[test]
    fn a_key_twice_in_a_watch_events_object_refuses_that_version() {
        let l = lines();
        for line in [
            r#"{"type":"MODIFIED","object":{"metadata":{"name":"web-1","namespace":"media","resourceVersion":"42","labels":{"app":"a","app":"b"}}}}"#,
            r#"{"object":{"metadata":{"name":"web-1","namespace":"media","resourceVersion":"42","labels":{"app":"a","app":"b"}}},"type":"MODIFIED"}"#,
        ] {
            let Some(Ok(item)) = l.decode(line.as_bytes(), 6) else { panic!("{line}") };
            assert_eq!(
                item,
                WatchItem::Refused {
                    resource_version: "42".into(),
                    message: "media/web-1: the key \"app\" appears twice in one object (at metadata.labels.app; which \
                              value is meant is unknown); this version is not stored"
                        .into()
                }
            );
        }
        let added = l.decode(br#"{"type":"ADDED","object":{"metadata":{"name":"ok"}}}"#, 6);
        assert!(matches!(added, Some(Ok(WatchItem::Added(_)))));
    }

    /// Break-it 37 F9: an event within the cap as text whose value takes
    /// more parsed (`[0,0,…]`) is refused by name and limit, not built; a
    /// string of the same length is read.
    #[test]
    fn an_event_whose_value_takes_more_than_the_cap_parsed_is_refused_by_name() {
        let l = capped(Vec::new(), 1 << 20);
        let zeros = format!(
            r#"{{"type":"ADDED","object":{{"metadata":{{"name":"web-1","namespace":"media","resourceVersion":"42"}},"spec":{{"x":[{}0]}}}}}}"#,
            "0,".repeat(500_000)
        );
        assert!(zeros.len() < 1 << 20, "within the cap as text: {}", zeros.len());
        let Some(Ok(item)) = l.decode(zeros.as_bytes(), 6) else { panic!("refused") };
        assert_eq!(
            item,
            WatchItem::Refused {
                resource_version: "42".into(),
                message: format!(
                    "media/web-1: an event of {} bytes whose object takes more than 17 MiB parsed (16 times the 1 \
                     MiB kdrift reads in one watch event, and 1 MiB; JSON numbers and short strings take many times \
                     their text as values); this version is not stored",
                    zeros.len()
                )
            }
        );
        let blob = zeros.replace(&format!("[{}0]", "0,".repeat(500_000)), &format!("\"{}\"", "x".repeat(1_000_001)));
        assert_eq!(blob.len(), zeros.len());
        assert!(matches!(l.decode(blob.as_bytes(), 7), Some(Ok(WatchItem::Added(_)))));
    }

    fn lines() -> Lines {
        lines_of(Vec::new())
    }

    /// Lines over a body of these bytes, its line count at 0.
    fn lines_of(bytes: Vec<u8>) -> Lines {
        capped(bytes, MAX_WATCH_EVENT_BYTES)
    }

    /// [`lines_of`] holding events of at most `max_event` bytes.
    fn capped(bytes: Vec<u8>, max_event: usize) -> Lines {
        let (_, body) = http::Response::new(Body::from(bytes)).into_parts();
        Lines {
            data: body.into_data_stream(),
            buffer: Vec::new(),
            head: 0,
            scanned: 0,
            skipping: None,
            max_event,
            line: 0,
            ended: false,
            idle: Duration::from_secs(1),
            deadlines: Deadlines::default(),
            resource: "pods".into(),
            path: "/api/v1/pods".into(),
            kind: "Pod",
            api_version: "v1".into(),
        }
    }

    #[test]
    fn each_bad_line_names_its_kind_and_line() {
        let l = lines();
        let err = |line: &[u8]| match l.decode(line, 6) {
            Some(Err(e @ ClusterError::BadEvent { .. })) => e.to_string(),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            err(b"{\"type\":\"ADDED\",\"object\":{\"x\":\"\xff\"}}"),
            format!(
                "pods: watch line 6 from /api/v1/pods is not UTF-8 (byte 31 of the line); expected {}; the line is \
                 skipped",
                super::super::error::WATCH_LINE_EXPECTED
            )
        );
        assert!(err(b"{\"type\":\"ADDED\",\"obj").contains("is not JSON (EOF while parsing a string at column 20)"));
        assert!(err(b"{\"type\":\"GONE\",\"object\":{}}").contains("is an event of unknown type \"GONE\""));
        assert!(l.decode(b" \r", 6).is_none());
        // Break-it 41 G8: a line of NULs (or a form feed) was skipped silently.
        assert!(err(&[0u8; 1000]).contains("is not JSON (text between events: \"\\0\\0\\0"), "{}", err(&[0u8; 4]));
        assert!(err(b"\x0c").contains("is not JSON (text between events: \"\\u{c}\")"), "{}", err(b"\x0c"));
        // Break-it 33 F8: `type` or `object` twice was read silently.
        for (line, key) in [
            (&b"{\"type\":\"ADDED\",\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\"}}}"[..], "type"),
            (
                b"{\"type\":\"ADDED\",\"object\":{\"kind\":\"Status\"},\"object\":{\"metadata\":{\"name\":\"a\"}}}",
                "object",
            ),
        ] {
            assert_eq!(
                err(line),
                format!(
                    "pods: watch line 6 from /api/v1/pods is an event in which the key \"{key}\" appears twice in one \
                     object (at {key}; which value is meant is unknown); expected {}; the line is skipped",
                    super::super::error::WATCH_LINE_EXPECTED
                )
            );
        }
        let added = l.decode(b"{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\"}}}", 6);
        assert!(matches!(added, Some(Ok(WatchItem::Added(o))) if o["kind"] == "Pod" && o["apiVersion"] == "v1"));
    }

    /// The event of pod `w{i}`, one line without its `\n`.
    fn ev(i: u32) -> String {
        format!(r#"{{"type":"ADDED","object":{{"metadata":{{"name":"w{i}","resourceVersion":"{i}"}}}}}}"#)
    }

    /// Every item of a stream: the pods' names, and each error's text.
    async fn read(bytes: Vec<u8>) -> (Vec<String>, Vec<String>) {
        read_capped(bytes, MAX_WATCH_EVENT_BYTES).await
    }

    /// [`read`] with events of at most `max_event` bytes.
    async fn read_capped(bytes: Vec<u8>, max_event: usize) -> (Vec<String>, Vec<String>) {
        let mut l = capped(bytes, max_event);
        let (mut names, mut errors) = (Vec::new(), Vec::new());
        while let Some(item) = l.next().await {
            match item {
                Ok(WatchItem::Added(o)) => names.push(o["metadata"]["name"].as_str().unwrap_or("").to_string()),
                Ok(other) => panic!("{other:?}"),
                Err(e) => errors.push(e.to_string()),
            }
        }
        (names, errors)
    }

    /// Break-it 31 F5: client-go's stream decoder reads JSON values, not
    /// lines; events on one line, pretty-printed, separated by a bare `\r`,
    /// followed by text, or after a NUL run were lost. A NUL run is an error
    /// of its own (break-it 41 G8: skipped silently), the event after it read;
    /// the UTF-16 line's last NUL (its `\n` is `\n\0`) is one too.
    #[tokio::test]
    async fn watch_events_are_read_as_a_json_value_stream() {
        let pretty = serde_json::to_string_pretty(&serde_json::from_str::<Value>(&ev(1)).expect("json")).expect("json");
        let utf16: Vec<u8> = format!("{}\n", ev(2)).encode_utf16().flat_map(u16::to_le_bytes).collect();
        let cases: [(Vec<u8>, &[&str], usize); 6] = [
            (format!("{}{}\n{}\n", ev(1), ev(2), ev(3)).into_bytes(), &["w1", "w2", "w3"], 0),
            (format!("{pretty}\n{}\n", ev(2)).into_bytes(), &["w1", "w2"], 0),
            (format!("{}\r{}\r\n{}\n", ev(1), ev(2), ev(3)).into_bytes(), &["w1", "w2", "w3"], 0),
            (format!("{} trailing\n{}\n", ev(1), ev(2)).into_bytes(), &["w1", "w2"], 1),
            ([format!("{}\n", ev(1)).as_bytes(), &utf16, format!("{}\n", ev(3)).as_bytes()].concat(), &["w1", "w3"], 2),
            (
                [format!("{}\n", ev(1)).as_bytes(), &[0u8; 8], format!("{}\n", ev(2)).as_bytes()].concat(),
                &["w1", "w2"],
                1,
            ),
        ];
        for (i, (bytes, names, errors)) in cases.into_iter().enumerate() {
            let (got, errs) = read(bytes).await;
            assert_eq!(
                (got.iter().map(String::as_str).collect::<Vec<_>>().as_slice(), errs.len()),
                (names, errors),
                "case {i}: {errs:?}"
            );
        }
        let (_, errs) = read(format!("{} trailing\n{}\n", ev(1), ev(2)).into_bytes()).await;
        assert!(
            errs[0].starts_with("pods: watch line 1 from /api/v1/pods is not JSON (text between events: \"trailing\")"),
            "{errs:?}"
        );
        // A value broken inside ends at its line's end: the next event reads.
        let cut = &ev(2)[..ev(2).len() - 5];
        let (got, errs) = read(format!("{}\n{cut}\n{}\n", ev(1), ev(3)).into_bytes()).await;
        assert_eq!(got, ["w1", "w3"]);
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(errs[0].contains("watch line 2 ") && errs[0].contains("is not JSON (EOF while parsing"), "{errs:?}");
        // Break-it 42 H5: on one line, an event cut inside a string (or
        // in a number) before the next lost every event after it.
        for cut in [&ev(2)[..ev(2).find("w2").expect("w2") + 1], &ev(2)[..ev(2).len() - 4]] {
            let (got, errs) =
                read(format!("{}{}{cut}{}{}\n{}\n", ev(0), ev(1), ev(3), ev(4), ev(5)).into_bytes()).await;
            assert_eq!(got, ["w0", "w1", "w3", "w4", "w5"], "{cut}: {errs:?}");
            assert_eq!(errs.len(), 1, "{errs:?}");
            assert!(
                errs[0].contains("watch line 1 ") && errs[0].contains("is not JSON (EOF while parsing"),
                "{errs:?}"
            );
        }
        let open = r#"{"type":"ADDED","object":{"metadata":{"name":"x"}"#;
        let (got, errs) = read(format!("{open}\n{}\n", ev(3)).into_bytes()).await;
        assert_eq!((got, errs.len()), (vec!["w3".to_string()], 1), "{errs:?}");
    }

    /// Break-it 36 F3: a big event's text was held (the buffer at twice
    /// its size) until the next chunk, while its object waited to be stored.
    #[tokio::test]
    async fn a_big_events_text_is_freed_once_it_is_parsed() {
        let big =
            format!(r#"{{"type":"ADDED","object":{{"metadata":{{"name":"big","x":"{}"}}}}}}"#, "y".repeat(2 << 20));
        let mut l = lines_of(format!("{big}\n{}\n", ev(2)).into_bytes());
        let Some(Ok(WatchItem::Added(o))) = l.next().await else { panic!("the big event") };
        assert_eq!(o["metadata"]["name"], "big");
        assert!(l.buffer.capacity() < RELEASE_BYTES, "{} bytes held", l.buffer.capacity());
        let Some(Ok(WatchItem::Added(o))) = l.next().await else { panic!("the next event") };
        assert_eq!(o["metadata"]["name"], "w2");
    }

    /// Break-it 35 F22: no event over the cap is held; it is an error
    /// naming the resource, its line and the limit, and the events after it
    /// are read (one over the cap at the body's end, cut off, too).
    #[tokio::test]
    async fn an_event_over_the_cap_is_an_error_naming_the_limit_and_the_next_event_is_read() {
        let cap = ev(1).len() + 10;
        let big = format!(r#"{{"type":"ADDED","object":{{"metadata":{{"name":"big","x":"{}"}}}}}}"#, "y".repeat(cap));
        let (got, errs) = read_capped(format!("{}\n{big}\n{}\n{big}", ev(1), ev(3)).into_bytes(), cap).await;
        assert_eq!(got, ["w1", "w3"]);
        let at = |line: u32| {
            format!(
                "pods: watch line {line} from /api/v1/pods is an event of {} bytes, more than the {cap} bytes kdrift \
                 reads in one watch event (not held; its object is not stored); expected {}; the line is skipped",
                big.len(),
                super::super::error::WATCH_LINE_EXPECTED
            )
        };
        assert_eq!(errs, [at(2), at(4)]);
        // Exactly at the cap: read.
        let (got, errs) = read_capped(format!("{}\n{}\n", ev(1), ev(2)).into_bytes(), ev(2).len()).await;
        assert_eq!((got, errs.len()), (vec!["w1".to_string(), "w2".to_string()], 0));
    }
}
