//! Credential shapes that are whole blocks or header values: a PEM private
//! key's body, the credentials of an `Authorization` header (any scheme:
//! `Bearer`, `Basic`, `Token`, `ApiKey`…), a `Cookie` or `Set-Cookie`
//! header's value (issue 34 B).

use super::{plain_word, MASK};

/// Longest label between `-----BEGIN ` and `-----`, bytes (`ENCRYPTED
/// PRIVATE KEY`, `OPENSSH PRIVATE KEY`, `PGP PRIVATE KEY BLOCK`).
const PEM_LABEL: usize = 40;

/// The body of a PEM private key block starting at `i` (`-----BEGIN RSA
/// PRIVATE KEY-----`): everything up to its `-----END` line, or to the end
/// of the text when that is missing (cut short). Its newlines may be real
/// or escaped (`\n` inside a JSON string). Certificates and public keys
/// (`-----BEGIN CERTIFICATE-----`) are not masked.
pub(super) fn pem_private_key(bytes: &[u8], i: usize) -> Option<(usize, usize)> {
    let label_start = i + b"-----BEGIN ".len();
    if !bytes[i..].starts_with(b"-----BEGIN ") {
        return None;
    }
    let label_len = bytes[label_start..].iter().take(PEM_LABEL).position(|b| *b == b'-')?;
    let label = &bytes[label_start..label_start + label_len];
    if !label.windows(11).any(|w| w == b"PRIVATE KEY") || !bytes[label_start + label_len..].starts_with(b"-----") {
        return None;
    }
    let start = label_start + label_len + 5;
    let end = bytes[start..].windows(8).position(|w| w == b"-----END").map_or(bytes.len(), |p| start + p);
    (end > start).then_some((start, end))
}

/// Blanks around a header's `:`.
fn skip_blanks(bytes: &[u8], mut j: usize) -> usize {
    while matches!(bytes.get(j), Some(b' ' | b'\t')) {
        j += 1;
    }
    j
}

/// After a header name at `j` (an optional closing quote, blanks, `:` or
/// `=`, blanks): where its value starts and the quote around it, if any.
fn header_value_start(bytes: &[u8], mut j: usize) -> Option<(usize, Option<u8>)> {
    if bytes.get(j).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_') {
        return None; // a longer word: `cookies`, `authorizationFailed`
    }
    if matches!(bytes.get(j), Some(b'"' | b'\'')) {
        j += 1;
    }
    j = skip_blanks(bytes, j);
    if !matches!(bytes.get(j), Some(b':' | b'=')) {
        return None;
    }
    j = skip_blanks(bytes, j + 1);
    let quote = bytes.get(j).copied().filter(|b| matches!(b, b'"' | b'\''));
    Some((j + usize::from(quote.is_some()), quote))
}

/// The end of a quoted value (its closing quote, escapes skipped) or of an
/// unquoted one (the line's end: a newline, real or escaped, or a quote).
fn value_end(bytes: &[u8], start: usize, quote: Option<u8>) -> usize {
    let mut k = start;
    while k < bytes.len() {
        match (bytes[k], quote) {
            (b'\n' | b'\r', _) => break,
            (b'\\', Some(_)) => k += 1,
            (b'\\' | b'"' | b'\'', None) => break,
            (q, Some(open)) if q == open => break,
            _ => {}
        }
        k += 1;
    }
    k.min(bytes.len())
}

/// The credentials of an `Authorization` header at `i` (any case, as
/// `Authorization: …`, `"authorization": "…"` or `authorization=…`): after
/// a scheme word and blanks (a space, a tab, a newline) the rest of the
/// value, whatever its length (`Token abc123` → `Token ***`; a `Digest`'s
/// parameters all, to the line's end: its `response=` is the proof); a value of
/// one word is masked unless it is a plain word (`Authorization: denied`).
pub(super) fn authorization(bytes: &[u8], lower: &[u8], i: usize) -> Option<(usize, usize)> {
    if !lower[i..].starts_with(b"authorization") {
        return None;
    }
    let (start, quote) = header_value_start(bytes, i + b"authorization".len())?;
    let scheme = bytes[start..].iter().take_while(|b| b.is_ascii_alphanumeric() || b"-_".contains(b)).count();
    let mut j = start + scheme;
    loop {
        match bytes.get(j) {
            Some(b' ' | b'\t' | b'\n' | b'\r') => j += 1,
            Some(b'\\') if matches!(bytes.get(j + 1), Some(b'n' | b't' | b'r')) => j += 2,
            _ => break,
        }
    }
    if scheme > 0 && j > start + scheme {
        if bytes[start..start + scheme].eq_ignore_ascii_case(b"digest") {
            // Every parameter (`username=…, response="…"`), to the line's end.
            let end = match quote {
                Some(_) => value_end(bytes, j, quote),
                None => j + bytes[j..].iter().take_while(|b| !matches!(b, b'\n' | b'\r')).count(),
            };
            return (end > j && &bytes[j..end] != MASK.as_bytes()).then_some((j, end));
        }
        let end = match quote {
            Some(_) => value_end(bytes, j, quote),
            None => j + bytes[j..].iter().take_while(|b| !b.is_ascii_whitespace() && !b"\"'\\,;".contains(b)).count(),
        };
        return (end > j && &bytes[j..end] != MASK.as_bytes()).then_some((j, end));
    }
    let end = start + bytes[start..].iter().take_while(|b| !b.is_ascii_whitespace() && !b"\"'\\,;".contains(b)).count();
    let word = &bytes[start..end];
    (end > start && !plain_word(word) && word != MASK.as_bytes()).then_some((start, end))
}

/// The value of a `Cookie` or `Set-Cookie` header at `i` (any case): the
/// whole value, to its closing quote or the line's end (every cookie of
/// it; a `Set-Cookie`'s attributes too).
pub(super) fn cookie(bytes: &[u8], lower: &[u8], i: usize) -> Option<(usize, usize)> {
    if !lower[i..].starts_with(b"cookie") {
        return None;
    }
    let (start, quote) = header_value_start(bytes, i + b"cookie".len())?;
    let end = value_end(bytes, start, quote);
    let value = &bytes[start..end];
    (!value.trim_ascii().is_empty() && value != MASK.as_bytes()).then_some((start, end))
}
