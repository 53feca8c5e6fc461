//! Key material an error quotes whole, for error text only ([`mask_dumps`]):
//! a rustls/kube error about a client identity quotes the bytes it could
//! not read as a decimal byte array (`identity PEM is invalid: illegal
//! section start: [45, 45, 45, 45, 45, 66, …]`, the whole client key:
//! break-it 32 N2), or a PEM block as text. Not for records: a certificate
//! an object carries is data there.

use super::super::MASK;

/// Fewest numbers that make a byte-array rendering (`[45, 45, …]`): a
/// PEM's `-----BEGIN` alone is 11 bytes; a short list (`[1, 2, 3]`) is data.
pub const MIN_DUMP_BYTES: usize = 8;

/// `text` with every byte-array rendering of `MIN_DUMP_BYTES`+ numbers
/// of 0–255 (`[45, 45, 45, …]`, also cut short without its `]`) replaced
/// by `[***]`, and the body of every PEM block (`-----BEGIN CERTIFICATE-----`,
/// a private key: any label) up to its `-----END` line masked; its
/// newlines may be real or escaped (`\n`).
pub fn mask_dumps(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut copied, mut i) = (0, 0);
    while i < bytes.len() {
        let found =
            byte_array(bytes, i).map(|end| (i, end, "[***]")).or_else(|| pem_body(bytes, i).map(|(s, e)| (s, e, MASK)));
        match found {
            Some((start, end, mask)) => {
                out.push_str(&text[copied..start]);
                out.push_str(mask);
                copied = end;
                i = end.max(i + 1);
            }
            None => i += 1,
        }
    }
    out.push_str(&text[copied..]);
    out
}

/// The end of the byte array starting with `[` at `i` (after its `]`, or
/// at the end of its last number when cut short).
fn byte_array(bytes: &[u8], i: usize) -> Option<usize> {
    if bytes[i] != b'[' {
        return None;
    }
    let (mut j, mut count, mut last) = (i + 1, 0, i + 1);
    loop {
        while matches!(bytes.get(j), Some(b' ' | b'\n' | b'\t')) {
            j += 1;
        }
        let digits = bytes[j..].iter().take_while(|b| b.is_ascii_digit()).count();
        let number = std::str::from_utf8(&bytes[j..j + digits]).ok().and_then(|n| n.parse::<u16>().ok());
        if digits == 0 || digits > 3 || number.is_none_or(|n| n > 255) {
            break;
        }
        j += digits;
        count += 1;
        last = j;
        while matches!(bytes.get(j), Some(b' ' | b'\n' | b'\t')) {
            j += 1;
        }
        if bytes.get(j) != Some(&b',') {
            break;
        }
        j += 1;
    }
    if count < MIN_DUMP_BYTES {
        return None;
    }
    // `…` or `...` of a cut rendering, then the closing `]`.
    let mut end = last;
    while matches!(bytes.get(end), Some(b' ' | b',' | b'.')) || bytes[end..].starts_with("…".as_bytes()) {
        end += if bytes[end..].starts_with("…".as_bytes()) { "…".len() } else { 1 };
    }
    if bytes.get(end) == Some(&b']') {
        return Some(end + 1);
    }
    let tail = &bytes[last..end];
    let cut = tail.windows(3).any(|w| w == b"..." || w == "…".as_bytes());
    Some(if cut { last + tail.iter().rposition(|b| *b != b' ').map_or(0, |p| p + 1) } else { last })
}

/// The body of the PEM block whose `-----BEGIN LABEL-----` starts at `i`:
/// from after that line to its `-----END`, or to the end of the text.
fn pem_body(bytes: &[u8], i: usize) -> Option<(usize, usize)> {
    if !bytes[i..].starts_with(b"-----BEGIN ") {
        return None;
    }
    let label = i + b"-----BEGIN ".len();
    let close = bytes[label..].iter().take(40).position(|b| *b == b'-')? + label;
    if !bytes[close..].starts_with(b"-----") {
        return None;
    }
    let start = close + 5;
    let end = bytes[start..].windows(8).position(|w| w == b"-----END").map_or(bytes.len(), |p| start + p);
    (end > start).then_some((start, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Break-it 32 N2: a client key written with literal `\n` escapes was
    /// printed whole as decimal bytes by rustls' error.
    #[test]
    fn a_byte_array_and_a_pem_body_in_an_error_are_masked() {
        let key = "-----BEGIN PRIVATE KEY-----\\nMIICeAIBADANBgkqhkiG9w0BAQEFAASCAmIwggJeAgEAAoGBAOFQsmgVE7h8Mhm\\n-----END PRIVATE KEY-----\\n";
        let dump = format!("{:?}", key.as_bytes());
        let error = format!("cannot build a client for https://127.0.0.1:6443/: rustls tls error: identity PEM is invalid: illegal section start: {dump}");
        assert_eq!(
            mask_dumps(&error),
            "cannot build a client for https://127.0.0.1:6443/: rustls tls error: identity PEM is invalid: illegal section start: [***]"
        );
        assert_eq!(mask_dumps("start: [45, 45, 45, 45, 45, 66, 69, 71, 73, …"), "start: [***]");
        assert_eq!(mask_dumps("bytes [45, 45, 45, 45, 45, 66, 69, 71, ...] end"), "bytes [***] end");
        assert_eq!(
            mask_dumps(&format!("bad: {key}")),
            "bad: -----BEGIN PRIVATE KEY-----***-----END PRIVATE KEY-----\\n"
        );
        assert_eq!(
            mask_dumps("cert -----BEGIN CERTIFICATE-----\nMIIB9DCCAV2gAwIBAgIU\n-----END CERTIFICATE-----\n"),
            "cert -----BEGIN CERTIFICATE-----***-----END CERTIFICATE-----\n"
        );
        // Short lists, numbers over 255 and ordinary brackets stay.
        for kept in ["taints [1, 2, 3]", "[300, 301, 302, 303, 304, 305, 306, 307, 308]", "pods [web-0, web-1]"] {
            assert_eq!(mask_dumps(kept), kept);
        }
    }
}
