//! UTF-16 text: Windows PowerShell 5 writes it with `>` and `Out-File`
//! (little-endian, byte-order mark `FF FE`); some tools write it
//! big-endian (`FE FF`) or without a mark. kdrift reads dumps as UTF-8, so
//! such a file is decoded first and then read like any other: the same
//! records, lines and errors as its UTF-8 copy would give.

/// The byte order of UTF-16 text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Order {
    Little,
    Big,
}

/// Bytes looked at to recognise UTF-16 without a byte-order mark.
const SNIFF: usize = 64;

/// The byte order when `bytes` are UTF-16: a byte-order mark (`FF FE`,
/// `FE FF`), or, without one, a NUL at every odd (little-endian) or even
/// (big-endian) position of the first [`SNIFF`] bytes and none at the
/// others: what ASCII text (every JSON or YAML dump's syntax) becomes in
/// UTF-16. UTF-8 text holds no NUL at all.
fn order(bytes: &[u8]) -> Option<(Order, usize)> {
    if bytes.starts_with(b"\xFF\xFE") {
        return Some((Order::Little, 2));
    }
    if bytes.starts_with(b"\xFE\xFF") {
        return Some((Order::Big, 2));
    }
    let head = &bytes[..bytes.len().min(SNIFF) & !1];
    if head.len() < 4 {
        return None;
    }
    let (even, odd): (Vec<u8>, Vec<u8>) = head.chunks_exact(2).map(|p| (p[0], p[1])).unzip();
    let all_nul = |v: &[u8]| v.iter().all(|b| *b == 0);
    let no_nul = |v: &[u8]| v.iter().all(|b| *b != 0);
    if all_nul(&odd) && no_nul(&even) {
        Some((Order::Little, 0))
    } else if all_nul(&even) && no_nul(&odd) {
        Some((Order::Big, 0))
    } else {
        None
    }
}

/// `bytes` decoded to UTF-8 when they are UTF-16 (see [`order`]), else
/// `None`. A code unit that is no character (a lone surrogate, an odd
/// last byte of a cut file) becomes U+FFFD; the second value says whether
/// any did.
pub(crate) fn decode(bytes: &[u8]) -> Option<(String, bool)> {
    let (order, mark) = order(bytes)?;
    let units = bytes[mark..].chunks(2).map(|p| match (order, p) {
        (Order::Little, [a, b]) => u16::from_le_bytes([*a, *b]),
        (Order::Big, [a, b]) => u16::from_be_bytes([*a, *b]),
        // An odd last byte: half a code unit.
        _ => 0xD800,
    });
    let mut lossy = false;
    let text = char::decode_utf16(units)
        .map(|c| {
            c.unwrap_or_else(|_| {
                lossy = true;
                char::REPLACEMENT_CHARACTER
            })
        })
        .collect();
    Some((text, lossy))
}

/// The error of a UTF-16 file that did not decode cleanly.
pub(crate) const LOSSY: &str = "the file is UTF-16 (as PowerShell's `>` and `Out-File` write it) and holds code units \
     that are no character (cut off in the middle of one?); they were replaced by U+FFFD and the rest was read";

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16(text: &str, big: bool, mark: bool) -> Vec<u8> {
        let mut out = Vec::new();
        if mark {
            out.extend_from_slice(if big { b"\xFE\xFF" } else { b"\xFF\xFE" });
        }
        for u in text.encode_utf16() {
            out.extend_from_slice(&if big { u.to_be_bytes() } else { u.to_le_bytes() });
        }
        out
    }

    #[test]
    fn both_byte_orders_with_or_without_a_mark_decode() {
        let text = "{\"kind\": \"Pod\", \"métadata\": {}}\n";
        for big in [false, true] {
            for mark in [false, true] {
                assert_eq!(decode(&utf16(text, big, mark)), Some((text.to_string(), false)), "{big} {mark}");
            }
        }
        // UTF-8, with or without its own mark, is not UTF-16.
        assert_eq!(decode(text.as_bytes()), None);
        assert_eq!(decode(b"\xEF\xBB\xBF{}"), None);
        assert_eq!(decode(b"{}"), None);
        // A cut in the middle of a code unit.
        let mut cut = utf16("{}", false, true);
        cut.push(b'x');
        assert_eq!(decode(&cut), Some(("{}\u{FFFD}".to_string(), true)));
    }
}
