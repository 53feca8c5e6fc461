//! The forms of a held credential value that [`Redactor`](super::Redactor)
//! looks for: the value, its parts, its base64 (whole, and its cores at
//! the three byte alignments inside a longer encoded text), its hex, its
//! rarer forms ([`rare`](super::rare): base32, UTF-16, base64 twice,
//! reversed, rot13) — and what an echo that cut any of them leaves.
//!
//! A piece cut at both ends (`veTokQ7h3k9q2w8e5r1t` of
//! `LiveTokQ7h3k9q2w8e5r1tZZ`, and the same in base64 or hex: break-it 31
//! F1) is found by its windows: every run of [`MIN_WINDOW`] characters of
//! a form is a form, and the union of the windows found covers any piece
//! of [`MIN_WINDOW`]+ characters of it, wherever it was cut. A form's
//! prefixes and suffixes are forms from [`MIN_END`] characters on (a
//! credential cut at one end). So a held value costs a few windows per
//! character (about 16 per character with its base64 and hex), not one
//! form per piece (quadratic).
//!
//! Limit: a piece of 8–11 characters cut at both ends of an encoded form,
//! or of a value in records, is not found (an ordinary word can be that
//! long; in errors and logs any piece of 6+ characters of a value as it is
//! is found, [`pieces`]), nor one of 12–14 characters of a rare
//! encoded form (its windows are every [`RARE_STRIDE`] characters); a held value holding ordinary text of
//! 12+ characters (a long user name in `user:password`) masks that text
//! too. Values found only as whole tokens ([`Redactor::for_records`](super::Redactor::for_records),
//! under [`WHOLE_TOKEN_BELOW`](super::WHOLE_TOKEN_BELOW) characters) have no
//! windows: a piece of them cannot be told from data.

use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use base64::Engine;

use super::{MIN_PART, MIN_SECRET};

/// Shortest piece of a credential found wherever it was cut (at both
/// ends), characters ([`windows`]). Twelve: past the 8 of a cut at one
/// end ([`MIN_END`]), so that no ordinary word is a piece, and under the
/// 16 from which a short value is looked for inside a longer token in
/// records.
pub const MIN_WINDOW: usize = 12;

/// The shortest prefix or suffix of a credential matched ([`ends_of`]), characters.
pub const MIN_END: usize = 8;

/// The shortest base64 core ([`base64_cores`]) matched, characters.
const MIN_CORE: usize = 8;

/// The forms of one credential value that are matched (before decoding).
/// `whole_only`: the value is found only as a whole token, so it gets no
/// windows (its prefixes and suffixes stay, as whole tokens).
pub(super) fn forms_of(value: &str, whole_only: bool, out: &mut Vec<String>) {
    if value.chars().count() < MIN_SECRET {
        return;
    }
    // Already an encoding of binary key material ([`binary_values`]): itself only.
    if let Some(encoded) = value.strip_prefix(ENCODED) {
        let len = encoded.chars().count();
        if whole_only || len < MIN_WINDOW {
            out.extend(ends_of(encoded, len));
            out.push(encoded.to_string());
        } else {
            // A decimal integer's ends of 8–11 digits are ordinary numbers
            // (a count, a timestamp): its 12-digit windows only.
            if !encoded.bytes().all(|b| b.is_ascii_digit()) {
                out.extend(ends_of(encoded, MIN_WINDOW));
            }
            out.extend(windows(encoded, 1));
        }
        return;
    }
    let mut plain = vec![value.to_string()];
    // A header of parts is found whole; its parts are held on their own
    // ([`with_parts`]), so `theme=dark` of a held cookie header is not.
    let parted = has_parts(value);
    let parts: Vec<&str> = value.split_whitespace().collect();
    if parts.len() > 1 && !parted {
        plain.extend(parts.iter().filter(|p| p.chars().count() >= MIN_PART).map(|p| p.to_string()));
    }
    let rare_parts_only = plain.len() > 1;
    if value.contains(' ') {
        plain.push(value.replace(' ', "+"));
    }
    let mut bases = Vec::new();
    let mut sparse = Vec::new();
    let raw = plain.clone();
    // Re-spellings an echo may use, looked for as they are (their own
    // encodings are not: an echo re-spells or encodes, rarely both).
    if !parted {
        bases.extend(respellings(value));
    }
    for p in plain {
        for engine in [&STANDARD, &URL_SAFE, &STANDARD_NO_PAD, &URL_SAFE_NO_PAD] {
            bases.push(engine.encode(&p));
        }
        // Inside a longer encoded text, at any of the three alignments, and
        // cut short there (break-it: `base64("X-Api-Key: " + key)` cut to 44
        // characters showed the key's first 22 characters).
        bases.extend(base64_cores(p.as_bytes()));
        // Hex (matched in any case): byte-aligned, so the same inside a longer encoded text.
        bases.push(p.bytes().map(|b| format!("{b:02x}")).collect());
        // Reversed, rot13; base32, UTF-16's base64 and hex, base64 twice
        // (their windows every [`RARE_STRIDE`] characters): [`rare`](super::rare).
        // Of a header whose parts are held on their own (`Bearer <token>`),
        // the parts' only: their base32 and UTF-16 cores are found inside
        // any longer text.
        if !rare_parts_only || parts.contains(&p.as_str()) {
            let (text, encoded) = super::rare::rare_forms(&p);
            bases.extend(text);
            sparse.extend(encoded);
        }
        // A byte list and separated hex (break-it 33 F1): whole forms, not windowed.
        out.extend(listed(p.as_bytes(), if whole_only { p.len() } else { LISTED_PIECE }));
        bases.push(p);
    }
    for base in bases {
        let len = base.chars().count();
        if parted && raw.contains(&base) {
            out.push(base);
        } else if whole_only || len < MIN_WINDOW {
            out.extend(ends_of(&base, len));
            out.push(base);
        } else {
            out.extend(ends_of(&base, MIN_WINDOW));
            out.extend(windows(&base, 1));
        }
    }
    for base in sparse {
        let len = base.chars().count();
        if whole_only || len < MIN_WINDOW {
            out.extend(ends_of(&base, len));
            out.push(base);
        } else {
            out.extend(ends_of(&base, MIN_WINDOW));
            out.extend(windows(&base, RARE_STRIDE));
        }
    }
}

/// Every run of [`MIN_PIECE`](super::MIN_PIECE) characters of each of
/// `values` as it is that holds a digit or a symbol, so that any piece of
/// 6+ characters cut anywhere holds one unless it is word-like: letters
/// and `-_.` alone (`BEARER` of a token `BEARERs3cret`, `-token` of
/// `err-token-5f6e`: an ordinary word of an error, or `X-Plex-Token` of a
/// URL, would be masked too; such a piece is found from [`MIN_WINDOW`]
/// characters). Of a value with blanks, its parts of
/// [`MIN_PART`]+ characters (a scheme word such as `ApiKey` or `Basic`
/// left alone); of `name=value` (a query parameter), the value. None of a
/// value `user:password` whose password is a value of its own (the user
/// name is no secret), of a header of parts (its parts are values of
/// their own, [`with_parts`]), nor of an encoding of key material.
pub(super) fn pieces(values: &[String]) -> Vec<String> {
    let n = super::MIN_PIECE;
    // Letters and the separators of ordinary words (`-token`, `my_key`).
    let word = |c: char| c.is_alphabetic() || "-_.".contains(c);
    let name = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    let mut out = Vec::new();
    for value in values {
        if value.starts_with(ENCODED)
            || has_parts(value)
            || value.split_once(':').is_some_and(|(_, password)| values.iter().any(|v| v == password))
        {
            continue;
        }
        let value = match value.split_once('=') {
            Some((key, rest)) if name(key) && rest.chars().count() >= n => rest,
            _ => value.as_str(),
        };
        let parts: Vec<&str> = value.split_whitespace().collect();
        let parts =
            if parts.len() > 1 { parts.into_iter().filter(|p| p.chars().count() >= MIN_PART).collect() } else { parts };
        for part in parts {
            let chars: Vec<char> = part.chars().collect();
            out.extend(chars.windows(n).filter(|w| !w.iter().all(|c| word(*c))).map(|w| w.iter().collect::<String>()));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Characters between the windows of a rare encoded form (base32, UTF-16,
/// base64 twice, the hex reversed: [`rare`](super::rare)): a piece of one
/// cut at both ends is found from [`MIN_WINDOW`] + `RARE_STRIDE` − 1 (15)
/// characters (its prefixes and suffixes from [`MIN_END`], as any form's;
/// a whole one by any window, the match widened over its token). A window
/// at every character would take the speed test's 1,000-character token
/// (and `Bearer` before it) from 11,144 forms to 46,896 and the
/// automaton's build from 0.22 to 0.76 s CPU (unoptimized); one every 4
/// takes it to 24,712 forms and 0.37 s. Matching costs about the same
/// (17.6 → 17.5 MB/s CPU, unoptimized).
pub const RARE_STRIDE: usize = 4;

/// The re-spellings of `value` a server or proxy may echo instead of it
/// (break-it 32 N8): a base64 value in the other alphabet (`+/` as `-_`,
/// unpadded, and back); `+` read as a form-encoded space; and for a
/// non-ASCII value (a Basic password `Grüße…`), its upper and lower case
/// (matching ignores ASCII case only), their NFD ([`super::nfd`]: `ü` as
/// `u` + U+0308), and its UTF-8 bytes read as Latin-1 (`GrÃ¼Ã\u{9f}e`).
fn respellings(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    if value.chars().all(|c| c.is_ascii_alphanumeric() || "+/=-_".contains(c)) {
        if value.contains(['+', '/']) {
            let url = value.replace('+', "-").replace('/', "_");
            out.push(url.trim_end_matches('=').to_string());
            out.push(url);
        }
        if value.contains(['-', '_']) {
            out.push(value.replace('-', "+").replace('_', "/"));
        }
    }
    if value.contains('+') {
        out.push(value.replace('+', " "));
    }
    if !value.is_ascii() {
        let (upper, lower) = (value.to_uppercase(), value.to_lowercase());
        for v in [value, &upper, &lower] {
            out.push(super::nfd::nfd(v));
        }
        out.extend([upper, lower]);
        out.push(value.bytes().map(char::from).collect());
    }
    out.retain(|v| v != value && v.chars().count() >= MIN_SECRET);
    out.sort();
    out.dedup();
    out
}

/// Bytes of a held value in each piece [`listed`] gives, from
/// [`MIN_WINDOW`]: a byte list or separated hex cut to 12+ bytes holds one.
const LISTED_PIECE: usize = MIN_WINDOW;

/// Every run of `piece` bytes of `bytes` (all of them when shorter)
/// written as a decimal byte list (`76, 105, 118`, `76,105,118`: Rust's
/// `{:?}` of a `Vec<u8>`, Python's `list(b)`) and as hex with `:` or ` `
/// between bytes (`4c:69:76`, `4C 69 76`: `openssl`, `xxd`, Go's `% x`).
/// Break-it 33 F1: a server echoing the token in these forms had it
/// stored and printed. A run of `piece` bytes at every offset: a list
/// cut anywhere to `piece`+ bytes holds one whole.
fn listed(bytes: &[u8], piece: usize) -> Vec<String> {
    let piece = piece.clamp(1, bytes.len().max(1));
    let mut out = Vec::new();
    for run in bytes.windows(piece) {
        for sep in [", ", ","] {
            out.push(run.iter().map(u8::to_string).collect::<Vec<_>>().join(sep));
        }
        for sep in [":", " "] {
            out.push(run.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(sep));
        }
    }
    out
}

/// Marks a held value that is already an encoding of binary bytes
/// ([`binary_values`]): it is looked for as it is (its windows), not
/// encoded again. A control character: no credential text holds one
/// (a token with one is refused).
const ENCODED: char = '\u{1}';

/// The values to [`hold`](super::hold) for binary credential bytes (a
/// client key's DER, decoded from its PEM body): their hex and their
/// base64 (standard and URL-safe) at the three byte alignments, each
/// looked for by its windows — a piece of 12+ characters of the bytes'
/// encoding at any offset (break-it 33 F2: the hex of the key's DER, its
/// base64 shifted by 1 or 2 bytes, and the PKCS#1 key inside the PKCS#8
/// one, at offset 26, were stored in clear).
#[cfg(feature = "cluster")]
pub fn binary_values(bytes: &[u8]) -> Vec<String> {
    let mut out = vec![format!("{ENCODED}{}", bytes.iter().map(|b| format!("{b:02x}")).collect::<String>())];
    out.extend(base64_cores(bytes).into_iter().map(|core| format!("{ENCODED}{core}")));
    out
}

/// `text` marked as an encoding of binary key material (a key's private
/// integer in decimal: [`super::keys`]): held by its windows, not encoded again.
#[cfg(feature = "cluster")]
pub(super) fn encoded(text: &str) -> String {
    format!("{ENCODED}{text}")
}

/// The prefixes and suffixes of `form` of [`MIN_END`] characters or more
/// and shorter than `below`: what is left of a credential that a server or
/// proxy cut short in its echo (`bad password Pw/S3cr3t+x=` for
/// `Pw/S3cr3t+x=y&z`: break-it).
fn ends_of(form: &str, below: usize) -> Vec<String> {
    let chars: Vec<char> = form.chars().collect();
    (MIN_END..chars.len().min(below))
        .flat_map(|n| [chars[..n].iter().collect::<String>(), chars[chars.len() - n..].iter().collect::<String>()])
        // Blanks at a cut end are the text's, not the credential's.
        .map(|end| end.trim().to_string())
        .filter(|end| end.chars().count() >= MIN_END)
        .collect()
}

/// Every run of [`MIN_WINDOW`] characters of `form` starting at a multiple
/// of `stride` (and the last run) that begins and ends with a token's
/// character (letters, digits, `-._~+/=%`): a blank or a
/// `;` at a cut end is the text's (and a match is widened over the token
/// around it, which would take the word before a `; `); the
/// neighbouring windows cover the rest.
fn windows(form: &str, stride: usize) -> Vec<String> {
    let token = |c: char| c.is_alphanumeric() || "-._~+/=%".contains(c);
    let chars: Vec<char> = form.chars().collect();
    let last = chars.len().saturating_sub(MIN_WINDOW);
    chars
        .windows(MIN_WINDOW)
        .enumerate()
        .filter(|(at, w)| (at % stride == 0 || *at == last) && token(w[0]) && token(w[MIN_WINDOW - 1]))
        .map(|(_, w)| w.iter().collect())
        .collect()
}

/// The base64 characters of `value` that are the same wherever it stands
/// inside a longer encoded text (`base64("Authorization: " + value)`, a
/// proxy's encoded header line): for each of the three offsets it can start
/// at, its encoding after the characters that share bits with the bytes
/// before it, and without a last character that shares bits with the bytes
/// after it. Cores shorter than [`MIN_CORE`] are left out (they would match
/// too much). The base64 of a piece of `value` is a piece of one of them.
pub(super) fn base64_cores(value: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    for (before, skip) in [(0usize, 0usize), (1, 2), (2, 3)] {
        let mut bytes = vec![0u8; before];
        bytes.extend_from_slice(value);
        let partial = !bytes.len().is_multiple_of(3);
        for engine in [&STANDARD_NO_PAD, &URL_SAFE_NO_PAD] {
            let encoded = engine.encode(&bytes);
            let end = encoded.len() - usize::from(partial);
            if end > skip && end - skip >= MIN_CORE {
                out.push(encoded[skip..end].to_string());
            }
        }
    }
    out
}

/// The values held for a credential value: itself and, for a header's
/// value of parts (`sid=…; theme=dark` of a `Cookie:`, `key=…, sig=…`),
/// each part and each part's value after `=`, of [`MIN_PART`]+ characters.
/// A server echoing one cookie showed its value whole (break-it 31 F1).
pub(super) fn with_parts(value: &str) -> Vec<String> {
    let mut out = vec![value.to_string()];
    if value.starts_with(ENCODED) {
        return out;
    }
    for decoded in decoded_forms(value) {
        if !out.contains(&decoded) {
            out.push(decoded);
        }
    }
    if !has_parts(value) {
        return out;
    }
    for part in value.split([';', ',']).map(str::trim) {
        // The value of `name=value`; a part without `=` whole.
        let piece = part.split_once('=').map_or(part, |(_, v)| v.trim());
        if piece.chars().count() >= MIN_PART && !out.iter().any(|o| o == piece) {
            out.push(piece.to_string());
        }
    }
    out
}

/// What a server that decodes a held base64 value shows of it (break-it 32
/// N1: `Authorization: Basic <base64>` given as an extra header came back
/// as `vluser:HdrBasicPw5Qz8Lp4Wm2`): for `value` or its last
/// whitespace-separated part (after a scheme, `Basic …`) that decodes
/// (standard or URL-safe base64, padded or not) to printable text of
/// [`MIN_PART`]+ characters, that text, and for `user:password` the
/// password alone — as `--user` and `--password-file` hold them.
pub(super) fn decoded_forms(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    let last = value.split_whitespace().last().unwrap_or_default();
    for encoded in [value.trim(), last] {
        let Some(text) = [&STANDARD, &URL_SAFE, &STANDARD_NO_PAD, &URL_SAFE_NO_PAD]
            .iter()
            .find_map(|engine| engine.decode(encoded).ok())
            .and_then(|bytes| String::from_utf8(bytes).ok())
        else {
            continue;
        };
        if text.chars().count() < MIN_PART || text.chars().any(char::is_control) || out.contains(&text) {
            continue;
        }
        if let Some((_, password)) = text.split_once(':') {
            if password.chars().count() >= MIN_SECRET {
                out.push(password.to_string());
            }
        }
        out.insert(0, text);
    }
    out
}

/// Whether `value` is a header value of `name=value` parts separated by
/// `; ` or `, ` (a `Cookie:`, `key=…, sig=…`), not a password that happens
/// to hold a `;`.
fn has_parts(value: &str) -> bool {
    value.contains('=') && (value.contains("; ") || value.contains(", "))
}

#[cfg(test)]
mod tests {
    use super::super::Redactor;
    use super::*;

    const TOKEN: &str = "LiveTokQ7h3k9q2w8e5r1tZZ";

    fn hex(s: &str) -> String {
        s.bytes().map(|b| format!("{b:02x}")).collect()
    }

    /// Break-it 31 F1: `veTokQ7h3k9q2w8e5r1t` (20 of the token's 24
    /// characters), its base64 and its hex (from an odd nibble) were stored
    /// and printed: only prefixes and suffixes were looked for.
    #[test]
    fn a_piece_cut_at_both_ends_is_masked_raw_in_base64_and_in_hex() {
        let bearer = format!("Bearer {TOKEN}");
        // 11 characters cut at both ends: left in records (an ordinary word
        // is that long), masked in errors (from 6 characters, `MIN_PIECE`).
        for (r, eleven) in [
            (Redactor::new([TOKEN, bearer.as_str()]), "x *** y"),
            (Redactor::for_records([TOKEN, bearer.as_str()]), "x veTokQ7h3k9 y"),
        ] {
            for (said, shown) in [
                ("x veTokQ7h3k9 y", eleven),
                ("event: veTokQ7h3k9q2w8e5r1t seen", "event: *** seen"),
                ("msg=\"dmVUb2tRN2gzazlxMnc4ZTVyMXQ=\", ok", "msg=\"***\", ok"),
                ("dump c697665546f6b513768336b3971327738653572 end", "dump *** end"),
                ("dump C697665546F6B513768336B3971327738653572 end", "dump *** end"),
                ("url /a?t=eTokQ7h3k9q2%77%38e5 next", "url /a?t=*** next"),
                (
                    "Back-off restarting failed container web in pod web-0",
                    "Back-off restarting failed container web in pod web-0",
                ),
            ] {
                assert_eq!(r.redact(said), shown, "{said}");
            }

            // Every piece of 12+ characters, wherever it was cut.
            let chars: Vec<char> = TOKEN.chars().collect();
            for start in 0..chars.len() {
                for end in start + MIN_WINDOW..=chars.len() {
                    let piece: String = chars[start..end].iter().collect();
                    assert_eq!(r.redact(&format!("a {piece} b")), "a *** b", "{piece}");
                    assert_eq!(r.redact(&format!("a {} b", hex(&piece).to_uppercase())), "a *** b", "hex {piece}");
                }
            }
            // Its base64 inside a longer encoded text at each alignment, cut
            // at both ends to 12+ characters of the token's own encoding.
            for before in ["", "A", "AB"] {
                let encoded = STANDARD_NO_PAD.encode(format!("{before}{TOKEN}!!!"));
                let own = (before.len() * 4).div_ceil(3) + 1;
                for start in own..own + 6 {
                    for end in start + MIN_WINDOW..encoded.len() - 6 {
                        let said = format!("b64 {} end", &encoded[start..end]);
                        assert_eq!(r.redact(&said), "b64 *** end", "{before:?}: {said}");
                    }
                }
            }
        }
    }

    /// Break-it 31 F1, the natural case: a server echoing one cookie of a
    /// held `Cookie:` header, or one part of `key=…, sig=…`, showed it.
    #[test]
    fn each_cookie_and_each_part_of_a_held_header_is_held_on_its_own() {
        const COOKIE: &str = "sid=Ck8Zq2Lm9; theme=dark";
        const PARTS: &str = "key=XAuthKeyDd4, sig=XAuthSig7H, v=1";
        for r in [Redactor::new([COOKIE, PARTS]), Redactor::for_records([COOKIE, PARTS])] {
            for (said, shown) in [
                ("your cookie Ck8Zq2Lm9 expired; theme=dark kept", "your cookie *** expired; theme=dark kept"),
                ("bad sig XAuthSig7H for key=XAuthKeyDd4", "bad sig *** for key=***"),
                ("v=1 dark theme", "v=1 dark theme"),
            ] {
                assert_eq!(r.redact(said), shown, "{said}");
            }
        }
        assert_eq!(with_parts(COOKIE), [COOKIE, "Ck8Zq2Lm9"]);
        assert_eq!(with_parts(PARTS), [PARTS, "XAuthKeyDd4", "XAuthSig7H"]);
    }

    /// Break-it 32 N1: a Basic password sent as an extra header, or a
    /// base64 API key, came back decoded from a server and was stored and
    /// printed in clear.
    #[test]
    fn a_held_base64_header_value_holds_what_it_decodes_to() {
        const BASIC: &str = "Basic dmx1c2VyOkhkckJhc2ljUHc1UXo4THA0V20y";
        const API_KEY: &str = "QXBpS2V5U2VjcmV0N1F6OExwNFdt";
        assert_eq!(decoded_forms(BASIC), ["vluser:HdrBasicPw5Qz8Lp4Wm2", "HdrBasicPw5Qz8Lp4Wm2"]);
        assert_eq!(decoded_forms(API_KEY), ["ApiKeySecret7Qz8Lp4Wm"]);
        // Not base64, or binary once decoded: nothing more held.
        assert!(decoded_forms("Token HdrTok9Zq8Lp4Wm2Xk7").is_empty());
        assert!(decoded_forms("sid=Ck8Zq2Lm9; theme=dark").is_empty());
        for r in [Redactor::new([BASIC, API_KEY]), Redactor::for_records([BASIC, API_KEY])] {
            for (said, shown) in [
                ("item2 [vluser:HdrBasicPw5Qz8Lp4Wm2]", "item2 [***]"),
                ("HTTP 400: bad user; item3 [HdrBasicPw5Qz8Lp4Wm2]", "HTTP 400: bad user; item3 [***]"),
                ("key ApiKeySecret7Qz8Lp4Wm rejected", "key *** rejected"),
                ("user vluser ok", "user vluser ok"),
            ] {
                assert_eq!(r.redact(said), shown, "{said}");
            }
        }
    }

    /// Break-it 33 F1: a server echoing the bearer token as a decimal byte
    /// list (whole or cut short) or as hex with `:` or ` ` between bytes
    /// had it stored in Event messages and printed on stderr.
    #[test]
    fn a_byte_list_and_separated_hex_of_a_held_value_are_masked() {
        let bytes = |sep: &str, s: &str| s.bytes().map(|b| b.to_string()).collect::<Vec<_>>().join(sep);
        let hexsep = |sep: &str, s: &str| s.bytes().map(|b| format!("{b:02X}")).collect::<Vec<_>>().join(sep);
        let bearer = format!("Bearer {TOKEN}");
        for r in [Redactor::new([TOKEN, bearer.as_str()]), Redactor::for_records([TOKEN, bearer.as_str()])] {
            assert_eq!(
                r.redact("token [76, 105, 118, 101, 84, 111, 107, 81, 55, 104, 51, 107, 57, 113, 50, 119, 56, 101, 53, 114, 49, 116, 90, 90] bad"),
                "token [***] bad"
            );
            assert_eq!(r.redact(&format!("t=[{}] x", bytes(",", TOKEN))), "t=[***] x");
            assert_eq!(r.redact(&format!("tok {} end", hexsep(":", TOKEN).to_lowercase())), "tok *** end");
            assert_eq!(r.redact(&format!("tok {} end", hexsep(" ", TOKEN))), "tok *** end");
            // Cut short at both ends to 12+ bytes.
            assert_eq!(r.redact(&format!("[{}, ...]", bytes(", ", &TOKEN[3..17]))), "[***, ...]");
            assert_eq!(r.redact(&format!("got {}…", hexsep(" ", &TOKEN[5..19]))), "got ***…");
            // Ordinary lists and dumps are kept.
            for kept in [
                "ports [80, 443, 8080, 9090]",
                "mac 4c:69:76:65:00:11 up",
                "bytes 4C 69 76 65 54 6F 6B",
                "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]",
            ] {
                assert_eq!(r.redact(kept), kept);
            }
        }
        // A short value, found only whole in records: its whole list only.
        let r = Redactor::for_records(["Pw9zQ8x7L"]);
        assert_eq!(r.redact("pw [80, 119, 57, 122, 81, 56, 120, 55, 76] no"), "pw [***] no");
        assert_eq!(r.redact("pw [80, 119, 57, 122, 81, 56, 120, 55] no"), "pw [80, 119, 57, 122, 81, 56, 120, 55] no");
    }

    /// Break-it 32 N8: echoes that re-spell a held value were stored and
    /// printed: HTML5 named entities (`&sol;`, `&plus;`, `&equals;`), a
    /// base64 token in the URL-safe alphabet (and back), `+` read as a
    /// space, and a non-ASCII Basic password upper-cased, in NFD, or its
    /// UTF-8 read as Latin-1.
    #[test]
    fn re_spellings_of_a_held_value_are_masked() {
        const SLASHED: &str = "Pw/S3cr3t+xQ7Lp4Wm2=";
        const URL_SAFE_TOKEN: &str = "Ab-_Cd9Zq8Lp4Wm2Xk";
        const PASSWORD: &str = "Grüße-Pässwört-7Qz";
        let basic = format!("vluser:{PASSWORD}");
        let held = [SLASHED, URL_SAFE_TOKEN, PASSWORD, basic.as_str()];
        for r in [Redactor::new(held), Redactor::for_records(held)] {
            for (said, shown) in [
                // HTML: named entities, numeric ones, and `&quot;`/`&amp;` around or inside.
                ("td Pw&sol;S3cr3t&plus;xQ7Lp4Wm2&equals; end", "td *** end"),
                ("td Pw&SOL;S3cr3t&Plus;xQ7Lp4Wm2&equals; end", "td *** end"),
                ("td Pw&#x2F;S3cr3t&#43;xQ7Lp4Wm2&#x3d; end", "td *** end"),
                ("v=&quot;Pw/S3cr3t+xQ7Lp4Wm2=&quot; end", "v=&quot;***&quot; end"),
                ("v=Pw&amp;sol;S3cr3t&amp;plus;xQ7Lp4Wm2 end", "v=*** end"),
                // The other base64 alphabet, either way, padded or not.
                ("tok Pw_S3cr3t-xQ7Lp4Wm2 end", "tok *** end"),
                ("tok Pw_S3cr3t-xQ7Lp4Wm2= end", "tok *** end"),
                ("tok Ab+/Cd9Zq8Lp4Wm2Xk end", "tok *** end"),
                // `+` decoded to a space by a form decoder.
                ("pw Pw/S3cr3t xQ7Lp4Wm2= end", "pw *** end"),
                // The non-ASCII password: upper case (ß is SS), NFD, Latin-1 mojibake.
                ("pw GRÜSSE-PÄSSWÖRT-7QZ end", "pw *** end"),
                ("pw Gru\u{308}ße-Pa\u{308}sswo\u{308}rt-7Qz end", "pw *** end"),
                ("pw GRU\u{308}SSE-PA\u{308}SSWO\u{308}RT-7QZ end", "pw *** end"),
                ("pw GrÃ¼Ã\u{9f}e-PÃ¤sswÃ¶rt-7Qz end", "pw *** end"),
                // Ordinary text is kept.
                ("plain Grüße from Pässe, a+b=c", "plain Grüße from Pässe, a+b=c"),
            ] {
                assert_eq!(r.redact(said), shown, "{said}");
            }
        }
    }

    /// The cost of the windows on a large record: a 1,000-character token
    /// held (about 16,000 windows) and a 4 MiB text. Printed, not asserted
    /// (`cargo test -p kdrift-rebalance --lib redact::forms -- --nocapture`).
    #[test]
    fn the_cost_of_the_windows_on_a_large_text() {
        let mut seed = 0x2545_f491_u64;
        let token: String = (0..1000)
            .map(|_| {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                char::from(
                    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"[(seed >> 33) as usize % 62],
                )
            })
            .collect();
        let bearer = format!("Bearer {token}");
        let started = std::time::Instant::now();
        let r = Redactor::new([token.as_str(), bearer.as_str()]);
        let built = started.elapsed();
        let mut text = String::new();
        while text.len() < 4 << 20 {
            text.push_str(
                "{\"message\":\"Back-off restarting failed container web in pod web-0_shop(0a1b2c3d)\",\"count\":3},",
            );
        }
        text.push_str(&token[100..300]);
        let started = std::time::Instant::now();
        let shown = r.redact(&text);
        let took = started.elapsed();
        assert!(shown.ends_with("},***"), "{}", &shown[shown.len() - 40..]);
        println!(
            "redact cost: {} forms built in {built:?}; {} bytes redacted in {took:?} ({:.0} MB/s)",
            r.inner.forms.len(),
            text.len(),
            text.len() as f64 / took.as_secs_f64() / 1e6
        );
    }
}
