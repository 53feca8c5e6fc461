//! The rarer forms of a held value that an echo may show (break-it 34
//! H1, the forms it left): its base32 (RFC 4648's standard and `base32hex`
//! alphabets, padded or not, also inside a longer encoded text at any of
//! the five byte alignments); the base64 and hex of its UTF-16 (little-
//! and big-endian: PowerShell's `-EncodedCommand`, .NET's `Unicode`
//! bytes); the base64 of its base64; the value reversed, the hex of its
//! bytes reversed and its hex reversed; its rot13.
//!
//! Each is one more literal form, looked for as [`forms`](super::forms)
//! looks for the others (one automaton; its prefixes and suffixes, and its
//! windows — every `RARE_STRIDE` (4) characters for the encoded ones — so
//! a cut echo is found the same way). ASCII case is ignored by the matching, so
//! lower-case base32 is found too.

use base64::engine::general_purpose::{STANDARD, URL_SAFE};
use base64::Engine;

/// RFC 4648 §6 base32 alphabet.
const BASE32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
/// RFC 4648 §7 `base32hex` alphabet.
const BASE32_HEX: &[u8; 32] = b"0123456789ABCDEFGHIJKLMNOPQRSTUV";

/// Shortest base32 core ([`base32_cores`]) kept, characters (as base64's).
const MIN_CORE: usize = 8;

/// The rare forms of `value` (see the module doc): its re-spellings as
/// text (reversed, rot13), and its rare encodings (base32, UTF-16, base64
/// twice, the hex reversed).
pub(super) fn rare_forms(value: &str) -> (Vec<String>, Vec<String>) {
    let bytes = value.as_bytes();
    let mut out = Vec::new();
    for alphabet in [BASE32, BASE32_HEX] {
        let padded = base32(bytes, alphabet);
        out.push(padded.trim_end_matches('=').to_string());
        out.push(padded);
        out.extend(base32_cores(bytes, alphabet));
    }
    let utf16le: Vec<u8> = value.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let utf16be: Vec<u8> = value.encode_utf16().flat_map(u16::to_be_bytes).collect();
    for utf16 in [utf16le, utf16be] {
        out.push(hex(&utf16));
        out.push(STANDARD.encode(&utf16));
        // A command's UTF-16 holding the value at any offset (`-EncodedCommand`).
        out.extend(super::forms::base64_cores(&utf16));
    }
    for inner in [STANDARD.encode(bytes), URL_SAFE.encode(bytes)] {
        out.push(STANDARD.encode(&inner));
    }
    let reversed: Vec<u8> = bytes.iter().rev().copied().collect();
    out.push(hex(&reversed));
    out.push(hex(bytes).chars().rev().collect());
    let mut text = vec![value.chars().rev().collect(), rot13(value)];
    text.retain(|f| f != value);
    (text, out)
}

/// The lower-case hex of `bytes`.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `value` with its ASCII letters rotated by 13.
fn rot13(value: &str) -> String {
    value
        .chars()
        .map(|c| match c {
            'a'..='z' => char::from((c as u8 - b'a' + 13) % 26 + b'a'),
            'A'..='Z' => char::from((c as u8 - b'A' + 13) % 26 + b'A'),
            _ => c,
        })
        .collect()
}

/// The base32 of `bytes` in `alphabet`, padded with `=` to a multiple of
/// eight characters (RFC 4648 §6).
fn base32(bytes: &[u8], alphabet: &[u8; 32]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(5) * 8);
    for chunk in bytes.chunks(5) {
        let mut group = [0u8; 5];
        group[..chunk.len()].copy_from_slice(chunk);
        let bits = group.iter().fold(0u64, |n, b| n << 8 | u64::from(*b));
        let chars = (chunk.len() * 8).div_ceil(5);
        for k in 0..8 {
            if k < chars {
                out.push(char::from(alphabet[((bits >> (35 - 5 * k)) & 31) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The base32 characters of `bytes` that are the same wherever it stands
/// inside a longer encoded text (the five byte offsets modulo 5): after
/// the characters sharing bits with the bytes before, and without a last
/// one sharing bits with the bytes after (as base64's cores,
/// [`base64_cores`](super::forms::base64_cores)).
fn base32_cores(bytes: &[u8], alphabet: &[u8; 32]) -> Vec<String> {
    let mut out = Vec::new();
    for before in 0..5usize {
        let mut shifted = vec![0u8; before];
        shifted.extend_from_slice(bytes);
        let encoded = base32(&shifted, alphabet);
        let encoded = encoded.trim_end_matches('=');
        let skip = (before * 8).div_ceil(5);
        let end = encoded.len() - usize::from(!(shifted.len() * 8).is_multiple_of(5));
        if end > skip && end - skip >= MIN_CORE {
            out.push(encoded[skip..end].to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::forms::{MIN_WINDOW, RARE_STRIDE};
    use super::super::Redactor;
    use super::*;
    use base64::engine::general_purpose::STANDARD_NO_PAD;

    const TOKEN: &str = "LiveTokQ7h3k9q2w8e5r1tZZ";
    const PASSWORD: &str = "Tk9&Zp3+Wm/x<Lq7>Vb2=Hd5Rr";

    #[test]
    fn base32_and_rot13_as_python_writes_them() {
        // `base64.b32encode(b"foobar")`, `b32hexencode`, `codecs.encode(…, "rot13")`.
        assert_eq!(base32(b"foobar", BASE32), "MZXW6YTBOI======");
        assert_eq!(base32(b"foobar", BASE32_HEX), "CPNMUOJ1E8======");
        assert_eq!(base32(b"fooba", BASE32), "MZXW6YTB");
        assert_eq!(rot13("Hello, World-9"), "Uryyb, Jbeyq-9");
    }

    /// Every rare rendering of `v` that break-it 34 left unmasked, named.
    fn renderings(v: &str) -> Vec<(&'static str, String)> {
        let b = v.as_bytes();
        let le: Vec<u8> = v.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let be: Vec<u8> = v.encode_utf16().flat_map(u16::to_be_bytes).collect();
        let pwsh: Vec<u8> = format!("Invoke-WebRequest -Headers @{{Authorization='Bearer {v}'}}")
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        vec![
            ("b32", base32(b, BASE32)),
            ("b32_nopad", base32(b, BASE32).trim_end_matches('=').to_string()),
            ("b32_lower", base32(b, BASE32).to_lowercase()),
            ("b32hex", base32(b, BASE32_HEX)),
            ("b32hex_nopad_lower", base32(b, BASE32_HEX).trim_end_matches('=').to_lowercase()),
            ("b32_in_header", base32(format!("X-Api-Key: {v}").as_bytes(), BASE32)),
            ("b64_utf16le", STANDARD.encode(&le)),
            ("b64_utf16be", STANDARD.encode(&be)),
            ("encoded_command", STANDARD.encode(&pwsh)),
            ("hex_utf16le", hex(&le)),
            ("hex_utf16be", hex(&be).to_uppercase()),
            ("b64_of_b64", STANDARD.encode(STANDARD.encode(b))),
            ("b64_of_b64url", STANDARD.encode(URL_SAFE.encode(b))),
            ("b64_of_b64_nopad", STANDARD_NO_PAD.encode(STANDARD.encode(b))),
            ("reversed", v.chars().rev().collect()),
            ("hex_of_reversed", hex(&b.iter().rev().copied().collect::<Vec<_>>())),
            ("hex_reversed", hex(b).chars().rev().collect()),
            ("rot13", rot13(v)),
        ]
    }

    /// Break-it 34 H1 (low realism): a held token or Basic password
    /// echoed in base32, as UTF-16's base64 or hex, as its base64's
    /// base64, reversed, or in rot13 was stored and printed whole.
    #[test]
    fn the_rare_forms_of_a_held_value_are_masked_whole_and_cut() {
        for value in [TOKEN, PASSWORD] {
            let basic = format!("admin:{value}");
            for r in [Redactor::new([value, basic.as_str()]), Redactor::for_records([value, basic.as_str()])] {
                for (name, form) in renderings(value) {
                    assert_eq!(
                        r.redact(&format!("F[{name}]: {form} (end)")),
                        format!("F[{name}]: *** (end)"),
                        "{value}"
                    );
                    if matches!(name, "b32_in_header" | "encoded_command") {
                        continue;
                    }
                    // Cut at both ends to a piece of 16 characters of the form.
                    let chars: Vec<char> = form.chars().collect();
                    let mid = chars.len() / 2;
                    let piece: String = chars[mid - 8..mid + 8].iter().collect();
                    let piece = piece.trim_matches(|c: char| !c.is_ascii_alphanumeric());
                    assert_eq!(r.redact(&format!("cut {piece} …")), "cut *** …", "{value} {name}: {piece}");
                }
            }
        }
        // Every piece of 15+ characters of an encoded form (windows every
        // `RARE_STRIDE`), and of 12+ of the reversed text, cut at both ends.
        for r in [Redactor::new([TOKEN]), Redactor::for_records([TOKEN])] {
            let forms = renderings(TOKEN);
            for (name, form) in forms.iter().filter(|(n, _)| matches!(*n, "b32" | "b64_utf16le" | "reversed")) {
                let shortest = if *name == "reversed" { MIN_WINDOW } else { MIN_WINDOW + RARE_STRIDE - 1 };
                let chars: Vec<char> = form.trim_end_matches('=').chars().collect();
                for start in 0..chars.len() {
                    for end in start + shortest..=chars.len() {
                        let piece: String = chars[start..end].iter().collect();
                        assert_eq!(r.redact(&format!("a {piece} b")), "a *** b", "{name}: {piece}");
                    }
                }
            }
        }
        // Ordinary text in the same encodings, and near misses, kept.
        let r = Redactor::new([TOKEN, PASSWORD]);
        for kept in [
            format!("b32 {} ok", base32(b"Back-off restarting failed", BASE32)),
            format!(
                "ps {}",
                STANDARD.encode("Get-Pod web-0".encode_utf16().flat_map(u16::to_le_bytes).collect::<Vec<_>>())
            ),
            "reversed 0-bew nip reniatnoc deliaf gnitratser ffo-kcaB".to_string(),
            "Uryyb, Jbeyq: 0/2 nodes are available".to_string(),
            // A look-alike of the token (its first 4 characters, then others) in its rare forms.
            format!(
                "b32 {} rot {} rev {}",
                base32(b"LiveWikR8j4l0r3x9f6s2uAA", BASE32),
                rot13("LiveWikR8j4l0r3x9f6s2uAA"),
                "AAu2s6f9x3r0l4j8RkiWeviL"
            ),
        ] {
            assert_eq!(r.redact(&kept), kept);
        }
    }
}
