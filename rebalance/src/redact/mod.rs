//! Credentials kept out of everything a server's words reach: error
//! messages on stderr, the run's `ingest_errors` rows, logs. A proxy or a
//! broken server may echo the request's headers in any answer (an error
//! page, a `200` that is not JSON, a row's field), in any encoding.
//! [`Redactor`] replaces every form of every credential kdrift sends with
//! `***`:
//!
//! - the value itself, and its whitespace-separated parts of
//!   [`MIN_PART`]+ characters (`ApiKey 3f9c…` → `3f9c…`); the Basic
//!   password alone and `user:password`;
//! - its base64 (standard and URL-safe alphabets, padded or not), as Basic
//!   auth sends `user:password`, also inside a longer encoded text;
//! - its hex (lower or upper case), also inside a longer hex text (a
//!   debugging proxy's dump of the request bytes);
//! - what is left of the value, its base64 or its hex when the echo is cut
//!   short: its prefixes and suffixes of 8+ characters, and any piece cut
//!   at both ends of [`MIN_WINDOW`](forms::MIN_WINDOW) (12)+ characters,
//!   also of its base64 inside a longer encoded text at any of the three
//!   byte alignments ([`forms`]: every 12-character window of every form
//!   in one automaton; a piece of 8–11 characters cut at both ends is not
//!   found);
//! - each `name=value` part of a header value of parts (`sid=…; theme=dark`
//!   of a `Cookie:`, `key=…, sig=…`), from [`MIN_PART`] characters, as a
//!   value of its own (the rest of the header, `theme=dark`, is not);
//! - the encodings an echo may wrap it in, decoded before matching, up to
//!   [`DECODE_LEVELS`] deep and in any mix: URL-encoding (`%3D`), JSON and
//!   C escapes (`\u003d`, `\/`, `\"`, `\x3d`), HTML entities (`&#61;`,
//!   `&amp;`, `&sol;`); form encoding's `+` for a space; ASCII case ignored (`%3d`);
//! - its re-spellings ([`forms`]): a base64 value in the other alphabet
//!   (`-_` for `+/`, unpadded), `+` read as a space, and a non-ASCII
//!   value's upper and lower case, NFD ([`nfd`]) and UTF-8 read as Latin-1;
//!   octal (`\124`) and `\U0000004c` escapes; zero-width characters
//!   between its characters, fullwidth letters, its characters split by
//!   one repeated separator and its base64 in groups of four ([`layers`]);
//! - its bytes rendered with any separator (`54-6B-…`, `0x54,0x6b`,
//!   `[54, 6b, …]`, decimal `84;107;…`, an `xxd` dump, `openssl -text`
//!   blocks): a run of byte tokens read back to bytes and masked when
//!   they hold 12+ bytes of a held value or key ([`runs`]).
//!
//! - its rarer forms ([`rare`]): base32 (standard and `base32hex`
//!   alphabets, padded or not, any case, inside a longer encoded text at
//!   any byte alignment), the base64 and hex of its UTF-16 (LE and BE:
//!   PowerShell's `-EncodedCommand`, also inside a longer command), the
//!   base64 of its base64, the value reversed, its hex reversed and the
//!   hex of its bytes reversed, its rot13 — each cut short too (prefixes
//!   and suffixes from 8 characters; a piece cut at both ends from 15
//!   characters of an encoded one, from 12 of the reversed or rot13 text).
//!
//! - in errors and logs ([`Redactor::new`]), any piece of [`MIN_PIECE`]
//!   (6)+ characters of a value as it is, cut anywhere, unless the piece is
//!   word-like, letters and `-_.` alone (from 12 then); of a value with
//!   blanks, of its parts of [`MIN_PART`]+ characters; of `name=value`, of
//!   the value; not of a user name (`user:password` gives the password's
//!   pieces only).
//!
//! Not found: a piece cut at both ends shorter than 12 characters of an
//! encoded form (15 of a rare encoded form), or of a value in the records
//! kdrift stores ([`Redactor::for_records`]); an encoding of an encoding other than
//! base64 twice (base32 of its hex, rot13 of its base64, …); a credential
//! split by two or more different separators; anything that decodes only
//! with a key (encryption) or loses its bytes (a hash).
//!
//! A match inside a longer run of token characters (letters, digits,
//! `-._~+/=%`) masks the whole run: a held `sha256~HELD…` masked first
//! left the rest of a longer foreign `sha256~HELD…FOREIGN…` (break-it,
//! issue 34). Going back, `=` ends the run (`token=***`).
//!
//! Values shorter than [`MIN_SECRET`] characters are not redacted (they
//! would blank out ordinary words). In stored records
//! ([`Redactor::for_records`]) a value is looked for from
//! [`MIN_RECORD_SECRET`] characters on, and under [`WHOLE_TOKEN_BELOW`]
//! only as a whole token: a short secret cannot be told from data. Redaction comes before any cut: a text
//! read in part is redacted with [`Redactor::reach`] bytes more than it
//! keeps, and the end that cannot be checked (where a credential may
//! straddle the end of what was read) is dropped ([`Redactor::cut`]).
//!
//! [`held`]: the credentials this process holds (VictoriaLogs', the
//! kubeconfig's), for the sinks no redactor is handed to.
//!
//! [`json`]: the held credentials masked in every string and key of a
//! JSON object (a record before the store, an object read live).
//!
//! [`patterns`]: credentials nobody handed kdrift, masked by their shape
//! (a token after `Bearer`, a JWT, a URL's password, `password=…`), in
//! what a server says and in the free text of the records kdrift stores.

mod forms;
pub mod held;
pub mod json;
// Client keys come from a kubeconfig: the cluster edge only.
#[cfg(feature = "cluster")]
mod keys;
mod layers;
mod nfd;
pub mod patterns;
mod rare;
mod runs;

use std::sync::Arc;

#[cfg(feature = "cluster")]
pub use forms::binary_values;
pub use held::{held, held_in_records, hold, ordinary_text, warn_if_ordinary};
pub use json::mask_held_in;
#[cfg(feature = "cluster")]
pub use keys::key_values;
pub use patterns::{mask_dumps, mask_flag_argument, mask_patterns, secret_named};

use aho_corasick::AhoCorasick;

/// Shortest credential value redacted, characters.
pub const MIN_SECRET: usize = 4;
/// Shortest credential value looked for in stored records, characters
/// ([`Redactor::for_records`]).
pub const MIN_RECORD_SECRET: usize = 8;
/// Credential values shorter than this (characters) are looked for in
/// stored records only as whole tokens ([`Redactor::for_records`]).
pub const WHOLE_TOKEN_BELOW: usize = 16;
/// Shortest whitespace-separated part of a value redacted on its own, characters.
pub const MIN_PART: usize = 8;
/// Shortest piece of a credential value, cut anywhere, masked in errors
/// and logs ([`Redactor::new`]; not in records), characters: six. Five
/// characters of a password tell little and match ordinary words (`Basic`,
/// `token`); the values' encodings keep [`forms::MIN_WINDOW`] (12).
pub const MIN_PIECE: usize = 6;
/// Encoding layers undone before matching (`%253D` is two).
pub const DECODE_LEVELS: usize = 2;
/// Most raw bytes one decoded byte can come from in one layer (`&#x0003d;`).
const WIDEST_ESCAPE: usize = 10;
/// Most digits of a numeric HTML entity.
const ENTITY_DIGITS: usize = 6;

/// `text` as kdrift may show or store it (an error message quoting a
/// server's or a file's text): every credential this process holds
/// ([`held()`]), every credential shape ([`mask_patterns`]) and every
/// key dump ([`mask_dumps`]: a byte array, a PEM body) masked.
pub fn mask_shown(text: &str) -> String {
    let held = held();
    let text = if held.is_empty() { text.to_string() } else { held.redact(text) };
    mask_dumps(&mask_patterns(&text))
}

/// [`mask_shown`], with each of `kept` (what the user typed on the command
/// line: a file path, `NAMESPACE/NAME`) left as written wherever it shows
/// whole. The credential shapes read the end of a path as a key: `policy
/// /etc/passwd: (document): …` lost `(document)`, `reading policy
/// nonexist-password: No such file …` its `No` (new-user trial 46).
/// Credentials held are masked first, in kept text too; a kept value of
/// fewer than 3 characters is not kept (it would shield a key's name).
pub fn mask_shown_keeping(text: &str, kept: &[String]) -> String {
    let held = held();
    let mut text = if held.is_empty() { text.to_string() } else { held.redact(text) };
    // Each kept value, longest first, becomes a placeholder of private-use
    // characters no shape reads as a key or a value; restored after.
    let mut kept: Vec<&str> =
        kept.iter().map(String::as_str).filter(|k| k.chars().count() >= 3 && !k.contains(PLACEHOLDER)).collect();
    kept.sort_by_key(|k| std::cmp::Reverse(k.len()));
    kept.dedup();
    let mut used = Vec::new();
    for (i, k) in kept.iter().enumerate() {
        if text.contains(k) {
            text = text.replace(k, &format!("{PLACEHOLDER}{i}{PLACEHOLDER}"));
            used.push(i);
        }
    }
    let mut masked = mask_dumps(&mask_patterns(&text));
    for i in used {
        masked = masked.replace(&format!("{PLACEHOLDER}{i}{PLACEHOLDER}"), kept[i]);
    }
    masked
}

/// What stands for a kept value while the shapes are masked (U+E000, a
/// private-use character).
const PLACEHOLDER: char = '\u{E000}';

/// What replaces a credential.
pub const MASK: &str = "***";

/// Replaces every form of a set of credentials (see the module doc).
/// Cheap to clone; its `Debug` never shows a value.
#[derive(Clone, Default)]
pub struct Redactor {
    inner: Arc<Needles>,
}

#[derive(Default)]
struct Needles {
    /// Every form, ASCII-lowercased, longest first.
    forms: Vec<Vec<u8>>,
    /// Per form: found only as a whole token (no ASCII letter or digit
    /// right before or after it; [`Redactor::for_records`]).
    bounded: Vec<bool>,
    /// Longest form, bytes.
    longest: usize,
    /// The automaton of `forms` (pattern `i` is `forms[i]`): a text is
    /// read once, whatever the number of forms (a service account token
    /// has tens of thousands of windows, [`forms`]). `None` when it could
    /// not be built (too many states): the forms are then looked for one
    /// by one.
    automaton: Option<AhoCorasick>,
    /// Whether a text it finds a credential in is said to
    /// [`held::found_in_record`] ([`Redactor::noting_records`]).
    noting: bool,
}

/// Shortest form looked for, bytes ([`MIN_SECRET`]).
const MIN_FORM_BYTES: usize = 4;

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Redactor({} forms)", self.inner.forms.len())
    }
}

impl Redactor {
    /// A redactor of `values` (each credential value kdrift sends; for
    /// Basic auth, the password and `user:password`).
    ///
    /// Also every piece of six or more characters (`MIN_PIECE`) of each value as it is
    /// (not of its encodings), cut anywhere (`forms::pieces`): in errors
    /// and logs a false mask costs nothing (break-it 36 F17: pieces of 6–7
    /// characters of a password were readable).
    pub fn new<'a>(values: impl IntoIterator<Item = &'a str>) -> Redactor {
        let values: Vec<String> = values.into_iter().flat_map(forms::with_parts).collect();
        let pieces = forms::pieces(&values);
        Redactor::build(values.into_iter().map(|v| (v, false)), pieces)
    }

    /// A redactor of `values` for the records kdrift stores, where a false
    /// mask destroys data: a value under `MIN_RECORD_SECRET` (8) characters
    /// is not looked for at all, and one under `WHOLE_TOKEN_BELOW` (16) only
    /// as a whole token (no ASCII letter or digit right before or after
    /// it). Break-it (issue 34): a kubeconfig password `2026` turned every
    /// stored timestamp into `***-11-27T…`, a header value `100m` every
    /// cpu request into `***`. A secret that short cannot be told from
    /// data without destroying data; it is still masked in errors and
    /// logs ([`Redactor::new`]), where a false mask costs nothing.
    pub fn for_records<'a>(values: impl IntoIterator<Item = &'a str>) -> Redactor {
        Redactor::build(
            values.into_iter().flat_map(forms::with_parts).filter(|v| v.chars().count() >= MIN_RECORD_SECRET).map(
                |v| {
                    let whole_only = v.chars().count() < WHOLE_TOKEN_BELOW;
                    (v, whole_only)
                },
            ),
            Vec::new(),
        )
    }

    /// A redactor of `values`, each with whether its forms are found only
    /// as whole tokens, and of `pieces` as they are (anywhere).
    fn build(values: impl IntoIterator<Item = (String, bool)>, pieces: Vec<String>) -> Redactor {
        let mut forms: Vec<(Vec<u8>, bool)> =
            pieces.into_iter().map(|p| (p.to_ascii_lowercase().into_bytes(), false)).collect();
        for (v, bounded) in values {
            let mut of = Vec::new();
            forms::forms_of(&v, bounded, &mut of);
            forms.extend(of.into_iter().map(|f| (f.to_ascii_lowercase().into_bytes(), bounded)));
        }
        // Longest first; of a form given both ways, the unbounded one kept.
        forms.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.cmp(b)));
        forms.dedup_by(|later, first| later.0 == first.0);
        forms.retain(|f| f.0.len() >= MIN_FORM_BYTES);
        let (forms, bounded): (Vec<Vec<u8>>, Vec<bool>) = forms.into_iter().unzip();
        let longest = forms.first().map_or(0, Vec::len);
        let automaton = if forms.is_empty() { None } else { AhoCorasick::new(&forms).ok() };
        Redactor { inner: Arc::new(Needles { forms, bounded, longest, automaton, noting: false }) }
    }

    /// This redactor, saying each text [`Redactor::redact_found`] finds a
    /// credential in to `held::found_in_record` (a warning naming the
    /// credential's source, once): the redactor of the held credentials
    /// for the records kdrift stores ([`held_in_records`]).
    fn noting_records(mut self) -> Redactor {
        if let Some(needles) = Arc::get_mut(&mut self.inner) {
            needles.noting = true;
        }
        self
    }

    /// Whether `text` holds a credential of this redactor (nothing said).
    fn redact_found_quietly(&self, text: &str) -> bool {
        !self.spans(text.as_bytes()).is_empty()
    }

    /// Whether it redacts nothing (no credential of `MIN_SECRET`+
    /// characters was given): callers may skip it.
    pub fn is_empty(&self) -> bool {
        self.inner.forms.is_empty()
    }

    /// Most bytes one occurrence of a form (in any encoding handled) can
    /// span: read this much past what is kept, so that nothing kept is
    /// part of an occurrence running past the end of what was read. A long
    /// credential's forms are its windows (`forms`): the first window of
    /// an occurrence that starts in what is kept is read whole, and the
    /// windows after it mask the rest up to the end of what was read.
    pub fn reach(&self) -> usize {
        self.inner.longest * WIDEST_ESCAPE.pow(DECODE_LEVELS as u32)
    }

    /// `text` with every credential replaced by [`MASK`].
    pub fn redact(&self, text: &str) -> String {
        self.cut(text, true, usize::MAX)
    }

    /// `text` redacted, or `None` when it holds no credential (nothing to
    /// copy).
    pub fn redact_found(&self, text: &str) -> Option<String> {
        if self.spans(text.as_bytes()).is_empty() {
            return None;
        }
        if self.inner.noting {
            held::found_in_record(text);
        }
        Some(self.redact(text))
    }

    /// `text` redacted, then cut to `limit` characters (`…` marks a cut).
    /// `complete`: `text` is the whole of what the server said; when it is
    /// only the beginning, its last [`Redactor::reach`] bytes are dropped
    /// (a credential may straddle its end).
    pub fn cut(&self, text: &str, complete: bool, limit: usize) -> String {
        let len = text.len();
        let safe_end = if complete { len } else { floor_boundary(text, len.saturating_sub(self.reach())) };
        let mut out = String::new();
        let mut pos = 0;
        for (start, end) in self.spans(text.as_bytes()) {
            let (start, end) = (floor_boundary(text, start), ceil_boundary(text, end));
            if start >= safe_end {
                break;
            }
            if end <= pos {
                continue;
            }
            if start >= pos {
                out.push_str(&text[pos..start]);
                out.push_str(MASK);
            }
            pos = end;
        }
        if pos < safe_end {
            out.push_str(&text[pos..safe_end]);
        }
        let mut was_cut = safe_end < len;
        if let Some((at, _)) = out.char_indices().nth(limit) {
            out.truncate(at);
            was_cut = true;
        }
        if was_cut {
            out.push('…');
        }
        out
    }

    /// The beginning of `bytes` (UTF-8, lossily), redacted and cut to
    /// `limit` characters; only about `4 × limit` + [`Redactor::reach`]
    /// bytes of it are looked at.
    pub fn quote(&self, bytes: &[u8], limit: usize) -> String {
        let window = bytes.len().min(limit.saturating_mul(4).saturating_add(self.reach()));
        // Shapes too (`password=…`, `Bearer …`): a server's text may carry anybody's credential (issue 34).
        mask_patterns(&self.cut(&String::from_utf8_lossy(&bytes[..window]), window == bytes.len(), limit))
    }

    /// Byte ranges of `hay` holding a credential, sorted and merged.
    fn spans(&self, hay: &[u8]) -> Vec<(usize, usize)> {
        let forms = &self.inner.forms;
        if forms.is_empty() || hay.is_empty() {
            return Vec::new();
        }
        // The raw text first: its bytes are their own ranges.
        let mut spans = Vec::new();
        self.find(&hay.to_ascii_lowercase(), |at, len| spans.push((at, at + len)));
        // Then each decoded layer, and the raw range each of its bytes comes from.
        if let Some((mut layer, mut from)) = decode(hay) {
            for depth in 1..=DECODE_LEVELS {
                let lower = layer.to_ascii_lowercase();
                self.find(&lower, |at, len| spans.push((from[at].0, from[at + len - 1].1)));
                if depth == DECODE_LEVELS {
                    break;
                }
                let Some((next, next_from)) = decode(&layer) else { break };
                from = next_from.iter().map(|&(s, e)| (from[s].0, from[e - 1].1)).collect();
                layer = next;
            }
        }
        // Re-spellings around the characters (zero-width, fullwidth, split
        // by dots, base64 in groups: [`layers`]).
        for (layer, from) in layers::folded(hay).into_iter().chain(layers::joined(hay)) {
            self.find(&layer.to_ascii_lowercase(), |at, len| spans.push((from[at].0, from[at + len - 1].1)));
        }
        // Byte renderings of any separator, matched by their bytes' hex ([`runs`]).
        let (hex, from) = runs::byte_runs(hay);
        if !hex.is_empty() {
            let mut found = Vec::new();
            self.find(&hex, |at, len| found.push((at, at + len)));
            spans.extend(runs::accepted(found).into_iter().map(|(s, e)| (from[s].0, from[e - 1].1)));
        }
        // A match inside a longer token masks the whole token (break-it:
        // a held `sha256~HELD…` masked first left the rest of a foreign
        // `sha256~HELD…FOREIGN…` that the shapes could no longer see).
        let mut spans: Vec<(usize, usize)> = spans.into_iter().map(|(s, e)| token_run(hay, s, e)).collect();
        spans.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
        for (s, e) in spans {
            match merged.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        merged
    }
}

impl Redactor {
    /// Calls `hit(at, len)` for every (possibly overlapping) occurrence of
    /// a form in `lower` (ASCII-lowercased).
    fn find(&self, lower: &[u8], mut hit: impl FnMut(usize, usize)) {
        let needles = &self.inner;
        let alnum = |i: Option<usize>| i.and_then(|i| lower.get(i)).is_some_and(u8::is_ascii_alphanumeric);
        let mut found = |at: usize, f: usize| {
            let len = needles.forms[f].len();
            if !(needles.bounded[f] && (alnum(at.checked_sub(1)) || alnum(Some(at + len)))) {
                hit(at, len);
            }
        };
        match &needles.automaton {
            Some(automaton) => {
                for m in automaton.find_overlapping_iter(lower) {
                    found(m.start(), m.pattern().as_usize());
                }
            }
            None => {
                for (f, form) in needles.forms.iter().enumerate() {
                    let mut from = 0;
                    while let Some(i) =
                        lower.get(from..).and_then(|rest| rest.windows(form.len()).position(|w| w == form))
                    {
                        found(from + i, f);
                        from += i + 1;
                    }
                }
            }
        }
    }
}

/// Whether `b` may be part of a token (a credential's characters: base64,
/// URL-safe base64, `sha256~…`, percent-encoding).
fn token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~+/=%".contains(&b)
}

/// The byte a percent escape `%XX` starting at `hay[i]` stands for.
fn percent_at(hay: &[u8], i: usize) -> Option<u8> {
    (hay.get(i) == Some(&b'%')).then_some(())?;
    u8::try_from(hex_value(hay.get(i + 1..i + 3)?)?).ok()
}

/// `start..end` widened to the run of token characters ([`token_byte`])
/// around it. Going back, a `=` ends the run (`token=…`: base64 pads only
/// at its end), and so does an escape of a character that is not a
/// token's (`Basic%20…`), either way. Inside a URL ([`in_url`]) a `/`
/// ends it too: a token in a path masks its segment, not the host's port
/// and the rest of the path (break-it 34 L4 showed a probe
/// `http://127.0.0.1:9/bot…/getMe` as `http://127.0.0.1:***`).
fn token_run(hay: &[u8], mut start: usize, mut end: usize) -> (usize, usize) {
    let url = in_url(hay, start);
    let widens = |b: u8| token_byte(b) && !(url && b == b'/');
    loop {
        if start >= 3 && percent_at(hay, start - 3).is_some_and(|b| !token_byte(b)) {
            break;
        }
        match start.checked_sub(1).map(|i| hay[i]) {
            Some(b) if b != b'=' && widens(b) => start -= 1,
            _ => break,
        }
    }
    while end < hay.len() && widens(hay[end]) && percent_at(hay, end).is_none_or(token_byte) {
        end += 1;
    }
    (start, end)
}

/// Most bytes looked back from a match for the `://` of a URL holding it.
const URL_LOOKBACK: usize = 2048;

/// Whether `hay[at]` is inside a URL: a `://` before it in the same word
/// (no blank, quote or angle bracket between), at most [`URL_LOOKBACK`]
/// bytes back.
fn in_url(hay: &[u8], at: usize) -> bool {
    let from = at.saturating_sub(URL_LOOKBACK);
    let word = hay[from..at]
        .iter()
        .rposition(|b| b.is_ascii_whitespace() || b"\"'<>`".contains(b))
        .map_or(from, |i| from + i + 1);
    hay[word..at].windows(3).any(|w| w == b"://")
}

fn floor_boundary(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_boundary(text: &str, mut i: usize) -> usize {
    while i < text.len() && !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// A decoded layer: its bytes, and the range of the layer below each comes from.
type Layer = (Vec<u8>, Vec<(usize, usize)>);

/// `bytes` with one layer of escapes undone, and the range of `bytes`
/// each output byte comes from; `None` when there is no escape.
fn decode(bytes: &[u8]) -> Option<Layer> {
    if !bytes.iter().any(|b| matches!(b, b'%' | b'\\' | b'&')) {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut from = Vec::with_capacity(bytes.len());
    let mut changed = false;
    let mut i = 0;
    while i < bytes.len() {
        match escape_at(bytes, i) {
            Some((decoded, len)) => {
                for b in decoded {
                    out.push(b);
                    from.push((i, i + len));
                }
                i += len;
                changed = true;
            }
            None => {
                out.push(bytes[i]);
                from.push((i, i + 1));
                i += 1;
            }
        }
    }
    changed.then_some((out, from))
}

fn hex_value(digits: &[u8]) -> Option<u32> {
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
}

fn char_bytes(code: u32) -> Option<Vec<u8>> {
    let c = char::from_u32(code)?;
    Some(c.to_string().into_bytes())
}

/// The HTML named entities of the ASCII characters a credential or its
/// encodings hold (HTML5's `&sol;`, `&plus;`, `&equals;` besides the XML
/// five: break-it 32 N8), matched in any ASCII case. At most
/// [`WIDEST_ESCAPE`] bytes each.
const NAMED_ENTITIES: [(&str, u8); 29] = [
    ("amp;", b'&'),
    ("lt;", b'<'),
    ("gt;", b'>'),
    ("quot;", b'"'),
    ("apos;", b'\''),
    ("sol;", b'/'),
    ("bsol;", b'\\'),
    ("plus;", b'+'),
    ("equals;", b'='),
    ("percnt;", b'%'),
    ("colon;", b':'),
    ("semi;", b';'),
    ("comma;", b','),
    ("period;", b'.'),
    ("lowbar;", b'_'),
    ("hyphen;", b'-'),
    ("dash;", b'-'),
    ("commat;", b'@'),
    ("num;", b'#'),
    ("dollar;", b'$'),
    ("excl;", b'!'),
    ("quest;", b'?'),
    ("ast;", b'*'),
    ("lpar;", b'('),
    ("rpar;", b')'),
    ("lsqb;", b'['),
    ("rsqb;", b']'),
    ("verbar;", b'|'),
    ("grave;", b'`'),
];

/// The escape starting at `bytes[i]`: what it stands for and its length.
fn escape_at(bytes: &[u8], i: usize) -> Option<(Vec<u8>, usize)> {
    let rest = &bytes[i..];
    match rest.first()? {
        b'%' => Some((vec![u8::try_from(hex_value(rest.get(1..3)?)?).ok()?], 3)),
        b'\\' => match rest.get(1)? {
            b'u' => Some((char_bytes(hex_value(rest.get(2..6)?)?)?, 6)),
            // Python's and C's `\U0000004c` (break-it 34 H1).
            b'U' => Some((char_bytes(hex_value(rest.get(2..10)?)?)?, 10)),
            b'x' => Some((vec![u8::try_from(hex_value(rest.get(2..4)?)?).ok()?], 4)),
            // An octal escape `\124` (C, Python's bytes, `printf %q`: break-it 34 H1).
            b'0'..=b'3' => {
                let digits = rest.get(1..4)?;
                digits.iter().all(|d| (b'0'..=b'7').contains(d)).then_some(())?;
                Some((vec![digits.iter().fold(0u8, |n, d| n * 8 + (d - b'0'))], 4))
            }
            c @ (b'/' | b'"' | b'\\' | b'\'') => Some((vec![*c], 2)),
            _ => None,
        },
        b'&' => {
            for (name, c) in NAMED_ENTITIES {
                if rest.get(1..1 + name.len()).is_some_and(|n| n.eq_ignore_ascii_case(name.as_bytes())) {
                    return Some((vec![c], 1 + name.len()));
                }
            }
            let body = rest.get(1..)?.strip_prefix(b"#")?;
            let (hex, digits) = match body.first()? {
                b'x' | b'X' => (true, &body[1..]),
                _ => (false, body),
            };
            let n = digits.iter().take(ENTITY_DIGITS + 1).position(|b| *b == b';')?;
            let code = if hex {
                hex_value(&digits[..n])?
            } else if n > 0 && digits[..n].iter().all(u8::is_ascii_digit) {
                std::str::from_utf8(&digits[..n]).ok()?.parse().ok()?
            } else {
                return None;
            };
            Some((char_bytes(code)?, 2 + usize::from(hex) + n + 1))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::forms::MIN_END;
    use super::*;
    use base64::Engine;

    /// Issue 34 (fakevl2 `leakshort`): a server's line that is not JSON was
    /// quoted with only the held credentials masked.
    #[test]
    fn a_quote_masks_credential_shapes_as_well_as_held_values() {
        let r = Redactor::new(["held-Vq8zT2mX"]);
        assert_eq!(
            r.quote(b"password=FrgnPwQ5 Bearer FrgnT0kQ6xyzabc held-Vq8zT2mX not json", 200),
            "password=*** Bearer *** *** not json"
        );
        assert_eq!(
            r.quote(b"0/2 nodes are available: 2 Insufficient cpu.", 200),
            "0/2 nodes are available: 2 Insufficient cpu."
        );
        assert_eq!(mask_shown("line 3: dbPassword=Qw9ErTy7 is not JSON"), "line 3: dbPassword=*** is not JSON");
        // Paths the user typed are kept; a shape elsewhere is still masked (new-user trial 46).
        let kept = ["/etc/passwd".to_string(), "nonexist-password".to_string(), "token".to_string()];
        assert_eq!(
            mask_shown_keeping("policy /etc/passwd: (document): expected a mapping", &kept),
            "policy /etc/passwd: (document): expected a mapping"
        );
        assert_eq!(
            mask_shown_keeping("reading policy nonexist-password: No such file or directory (os error 2)", &kept),
            "reading policy nonexist-password: No such file or directory (os error 2)"
        );
        assert_eq!(
            mask_shown_keeping("policy token: (document); server said password=Qw9ErTy7", &kept),
            "policy token: (document); server said password=***"
        );
        assert_eq!(mask_shown_keeping("policy /etc/passwd: (document)", &[]), "policy /etc/passwd: ***)");
    }

    const USER: &str = "kdrift";
    const PASSWORD: &str = "pa55/W0rd\"q+y=z&7731<Q>";
    const BEARER: &str = "tok-3f9c2b7e11aa";
    const HEADER: &str = "ApiKey hk_9d8e7f6a5b4c";

    fn redactor() -> Redactor {
        let basic = format!("{USER}:{PASSWORD}");
        Redactor::new([PASSWORD, basic.as_str(), BEARER, HEADER, "ab"])
    }

    fn b64(s: &str) -> String {
        base64::engine::general_purpose::STANDARD.encode(s)
    }

    fn url_encoded(s: &str) -> String {
        s.bytes()
            .map(|b| if b.is_ascii_alphanumeric() { char::from(b).to_string() } else { format!("%{b:02X}") })
            .collect()
    }

    #[test]
    fn every_form_of_every_credential_is_masked() {
        let basic = b64(&format!("{USER}:{PASSWORD}"));
        let unpadded = basic.trim_end_matches('=').to_string();
        let json = serde_json::to_string(PASSWORD).expect("json");
        let json = &json[1..json.len() - 1];
        let escaped: String = PASSWORD.chars().map(|c| format!("\\u{:04x}", c as u32)).collect();
        let url_safe = basic.replace('+', "-").replace('/', "_");
        // (what the server wrote, what kdrift shows)
        let table: Vec<(String, String)> = vec![
            (format!("authorization: Basic {basic}"), "authorization: Basic ***".into()),
            (format!("auth={unpadded};"), "auth=***;".into()),
            (format!("auth={url_safe}"), "auth=***".into()),
            (format!("password {PASSWORD}!"), "password ***!".into()),
            (format!("Basic%20{}", url_encoded(&basic)), "Basic%20***".into()),
            (format!("Basic%20{}", url_encoded(&basic).to_lowercase()), "Basic%20***".into()),
            (format!("pw={}", url_encoded(PASSWORD).replace('%', "%25")), "pw=***".into()),
            (format!("{{\"password\":\"{json}\"}}"), "{\"password\":\"***\"}".into()),
            (format!("{{\"password\":\"{escaped}\"}}"), "{\"password\":\"***\"}".into()),
            (
                format!("<td>{}</td>", PASSWORD.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")),
                "<td>***</td>".into(),
            ),
            (format!("bearer: {BEARER}, {}", b64(BEARER)), "bearer: ***, ***".into()),
            (format!("x-api-key: {HEADER}"), "x-api-key: ***".into()),
            ("key alone: hk_9d8e7f6a5b4c".into(), "key alone: ***".into()),
            // Short values and the scheme word of a header are left alone.
            ("ab ApiKey".into(), "ab ApiKey".into()),
            ("nothing secret here".into(), "nothing secret here".into()),
        ];
        let r = redactor();
        for (said, shown) in table {
            assert_eq!(r.redact(&said), shown, "{said}");
        }
        assert!(!format!("{r:?}").contains("7731"));
    }

    #[test]
    fn a_credential_the_server_cut_short_is_masked_from_eight_characters_on() {
        let r = redactor();
        let basic = b64(&format!("{USER}:{PASSWORD}"));
        for shown in [
            format!("bad password {}", &PASSWORD[..12]),
            format!("{} was refused", &PASSWORD[PASSWORD.len() - 9..]),
            format!("Authorization: Basic {}", &basic[..30]),
            format!("key {}", &HEADER[..10]),
        ] {
            let redacted = r.redact(&shown);
            assert!(redacted.contains("***"), "{shown} → {redacted}");
            for w in PASSWORD.as_bytes().windows(8).chain(basic.as_bytes().windows(8)) {
                let piece = String::from_utf8_lossy(w);
                assert!(!redacted.contains(piece.as_ref()), "{shown} → {redacted}: {piece}");
            }
        }
        // Five characters are left alone: ordinary words would be blanked out.
        assert_eq!(r.redact(&format!("x {} y", &PASSWORD[..5])), format!("x {} y", &PASSWORD[..5]));
    }

    #[test]
    fn base64_of_a_longer_text_holding_a_credential_at_any_offset_is_masked() {
        // Break-it: a proxy encoding the whole header line (`X-Api-Key: <key>`,
        // the key at byte 11) showed the key's bytes, decodable.
        let r = redactor();
        for before in ["", "A", "AB", "ABC", "X-Api-Key: "] {
            for after in ["", "z", "zz", "zzz"] {
                for secret in [PASSWORD, HEADER, BEARER] {
                    let encoded = b64(&format!("{before}{secret}{after}"));
                    let shown = r.redact(&format!("ERR {encoded} END"));
                    assert!(shown.contains("***"), "{before:?}+{secret}+{after:?}: {shown}");
                    // What is left decodes to no 6 characters of the secret.
                    let kept: String = shown.replace("***", " ").split(' ').filter(|w| w.len() > 3).collect();
                    let decoded = base64::engine::general_purpose::STANDARD_NO_PAD
                        .decode(kept.trim_end_matches('=').as_bytes())
                        .unwrap_or_default();
                    let decoded = String::from_utf8_lossy(&decoded).to_string();
                    let chars: Vec<char> = secret.chars().collect();
                    for w in chars.windows(6) {
                        let piece: String = w.iter().collect();
                        assert!(!decoded.contains(&piece), "{before:?}+{secret}+{after:?}: {piece} in {decoded:?}");
                    }
                }
            }
        }
    }

    /// Break-it F3: a hex echo of a held credential (lower or upper case,
    /// alone or inside a hex dump of the whole header line, cut short) was
    /// shown as it came.
    #[test]
    fn hex_echoes_of_a_credential_are_masked_in_either_case() {
        let r = redactor();
        let hex = |s: &str| s.bytes().map(|b| format!("{b:02x}")).collect::<String>();
        for secret in [PASSWORD, BEARER, HEADER] {
            let lower = hex(secret);
            assert_eq!(r.redact(&format!("dump {lower} end")), "dump *** end", "{secret}");
            assert_eq!(r.redact(&format!("dump {} end", lower.to_uppercase())), "dump *** end", "{secret}");
            let line = hex(&format!("Authorization: Bearer {secret}\r\n"));
            let shown = r.redact(&format!("bytes={line}"));
            assert!(!shown.contains(&lower[..16]) && shown.contains("***"), "{secret}: {shown}");
            // Cut short by the server: what is left of it (16 hex digits, 8 bytes) is masked.
            let cut = &lower[..16];
            assert_eq!(r.redact(&format!("dump {cut}")), "dump ***", "{secret}");
        }
        // Other hex is left alone.
        let digest = "sha256:0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9";
        assert_eq!(r.redact(digest), digest);
    }

    #[test]
    fn a_credential_straddling_the_cut_never_shows_in_part() {
        let r = redactor();
        for shift in 0..PASSWORD.len() + 2 {
            let text = format!("{} {PASSWORD} and more text after it{}", "x".repeat(4096 - shift), "z".repeat(20_000));
            // Read in part: the beginning only, with the reach beyond the limit.
            let read = &text[..text.len().min(4096 + r.reach())];
            let shown = r.cut(read, read.len() == text.len(), 4096);
            for i in 0..=PASSWORD.len() - 6 {
                assert!(!shown.contains(&PASSWORD[i..i + 6]), "shift {shift}: {}", &shown[shown.len() - 40..]);
            }
            assert!(shown.ends_with('…') && shown.starts_with("xxxx"), "shift {shift}");
        }
        // Whole texts are cut after redaction, and only marked when cut.
        assert_eq!(r.cut(&format!("{PASSWORD} {PASSWORD} abcdef"), true, 9), "*** *** a…");
        assert_eq!(r.cut("short", true, 7), "short");
        // A read that stopped inside a credential loses the unchecked end.
        let partial = format!("ok {}", &b64(&format!("{USER}:{PASSWORD}"))[..10]);
        assert_eq!(r.cut(&partial, false, 100), "…");
    }

    /// Break-it (issue 34) HIGH 2: masking the held `sha256~HELD…` first
    /// left the rest of a longer foreign token sharing its beginning,
    /// which the shapes could then no longer see as a token.
    #[test]
    fn a_held_value_inside_a_longer_token_masks_the_whole_token() {
        const HELD: &str = "sha256~HELDt0kenQwErTy1234567";
        let foreign = format!("{HELD}FOREIGNtok9xyz8765abcdefgh");
        for r in [Redactor::new([HELD]), Redactor::for_records([HELD])] {
            for (said, shown) in [
                (format!("retry with Bearer {foreign} failed"), "retry with Bearer *** failed"),
                (format!("curl -H 'Authorization: Bearer {foreign}'"), "curl -H 'Authorization: Bearer ***'"),
                (format!("token={foreign}"), "token=***"),
                (format!("x/pre{HELD}.more, next"), "***, next"),
                (format!("name=p-{HELD}-0 ok"), "name=*** ok"),
                (format!("Basic%20{foreign}%20end"), "Basic%20***%20end"),
            ] {
                assert_eq!(r.redact(&said), shown, "{said}");
            }
        }
    }

    /// Break-it 34 L4: a held token in a URL's path masked the run of token
    /// characters around it, `/` included: `http://127.0.0.1:***`. In a URL
    /// a `/` ends the run; elsewhere the whole token is masked as before.
    #[test]
    fn a_held_token_in_a_url_path_masks_its_segment_only() {
        const HELD: &str = "PathTokQ7h3k9q2w8e5x1";
        let r = Redactor::new([HELD, "Ab/Cd+Ef9Zq8Lp4Wm2Xk7"]);
        for (said, shown) in [
            (
                "GET http://127.0.0.1:9/v1/PathTokQ7h3k9q2w8e5x1/status failed",
                "GET http://127.0.0.1:9/v1/***/status failed",
            ),
            ("url (https://h.example/x-PathTokQ7h3k9q2w8e5x1-y/z?n=1)", "url (https://h.example/***/z?n=1)"),
            ("\"http://h:1/Ab/Cd+Ef9Zq8Lp4Wm2Xk7/s\"", "\"http://h:1/***/s\""),
            // Not in a URL: the whole run, `/` included.
            ("path v1/PathTokQ7h3k9q2w8e5x1/status", "path ***"),
            ("http://h:1/ok then v1/PathTokQ7h3k9q2w8e5x1/x", "http://h:1/ok then ***"),
        ] {
            assert_eq!(r.redact(said), shown, "{said}");
        }
    }

    /// Break-it (issue 34) HIGH 3: a kubeconfig password `2026` turned every
    /// stored timestamp into `***-11-27T…`, a header value `100m` every cpu
    /// request into `***`. In records a value is looked for from 8
    /// characters on, and under 16 only as a whole token; errors mask all.
    #[test]
    fn in_records_a_short_held_value_never_masks_data() {
        let values = ["2026", "100m", "u:2026", "q7zk9x3m", "hdrQ9zzSecretValue0123456789abcdef"];
        let records = Redactor::for_records(values);
        for data in [
            "2026-11-27T10:00:00Z",
            "100m",
            "cpu 100m, 2026 pods",
            "q7zk9x3mm",
            "aq7zk9x3m",
            "web-2026-q7zk9x3m0",
            "default/u:2026x",
            "e1.abc",
        ] {
            assert_eq!(records.redact(data), data);
        }
        assert_eq!(records.redact("pw q7zk9x3m, \"q7zk9x3m\""), "pw ***, \"***\"");
        assert_eq!(records.redact("web-q7zk9x3m:1"), "***:1");
        assert_eq!(records.redact("k hdrQ9zzSecretValue0123456789abcdefX"), "k ***");
        // Errors and logs still mask the short ones.
        let errors = Redactor::new(values);
        assert_eq!(errors.redact("at 2026-11-27T10:00:00Z: 100m"), "at ***:00:00Z: ***");
    }

    /// Break-it (issue 34) MEDIUM 4: a server echoing
    /// `base64("X-Api-Key: " + key)` cut to 20–44 characters showed
    /// `WC1BcGkt…MTIz`, the key's first 22 characters, when the key stood
    /// at byte offset 1 or 2 of the encoded text.
    #[test]
    fn a_cut_base64_echo_at_any_alignment_is_masked() {
        use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
        const KEY: &str = "hdrQ9zzSecretValue0123456789abcdef";
        let r = Redactor::new([KEY]);
        for before in ["X-Api-Key: ", "X-Api-Key:", "X-Api-Key:  ", "A", "AB", ""] {
            // Where the key's own characters begin in the encoding, plus the
            // shortest cut-short form found.
            let first = (before.len() * 4).div_ceil(3) + 1 + MIN_END;
            for engine in [&STANDARD, &URL_SAFE_NO_PAD] {
                let encoded = engine.encode(format!("{before}{KEY}"));
                for cut in first..=encoded.len() {
                    let said = format!("dump {} end", &encoded[..cut]);
                    assert_eq!(r.redact(&said), "dump *** end", "{before:?} cut at {cut}: {said}");
                }
            }
        }
        // Break-it's exact echo: offset 2, cut to 44.
        let echo = &STANDARD.encode(format!("X-Api-Key: {KEY}"))[..44];
        assert_eq!(r.redact(&format!("dump {echo} end\n")), "dump *** end\n");
    }

    #[test]
    fn quoting_a_long_line_looks_at_its_beginning_only() {
        let r = redactor();
        let mut line = format!("not json: {BEARER} ").into_bytes();
        line.resize(line.len() + 10_000_000, b'y');
        let quoted = r.quote(&line, 30);
        assert_eq!(quoted, "not json: *** yyyyyyyyyyyyyyyy…");
        assert_eq!(Redactor::default().quote(b"plain", 30), "plain");
    }
}
