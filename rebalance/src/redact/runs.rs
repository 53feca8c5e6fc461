//! Byte renderings of any separator: a run of byte tokens — hex (`54`,
//! `6b`, `0x54`, groups `546b`), or decimal 0–255 (`84`) — each followed by
//! one separator (any single character that is not a letter or digit, with
//! blanks, newlines and indentation around it), read back to the bytes it
//! shows. Break-it 34 H1/H2: `54-6B-39-…`, `54,6b,…`, `0x54,0x6b,…`, Rust's
//! `[54, 6b, …]` (one per line too), `84 107 57 …`, `84;107;…`, an `xxd`
//! dump, and `openssl pkey -text`'s `0b:26:a9:…` blocks of 15 bytes a line
//! were stored and printed whole; only `:`/` ` hex and `[76, 105, …]` were
//! masked, each spelled out ([`forms`](super::forms)).
//!
//! The bytes of every run are written as one hex text ([`byte_runs`]) and
//! matched against the held forms' hex (the value's, a key's DER): a run
//! whose bytes hold [`MIN_RUN_BYTES`]+ bytes of a held value is masked
//! ([`accepted`]), whatever its separator. A line's `xxd`/`hexdump`
//! offset (`00000010:`) and ASCII column are skipped. The cost is one pass
//! over the text per radix, and the automaton over the runs' hex only.

use super::forms::MIN_WINDOW;

/// Fewest bytes of a held value a run must show to be masked: the piece
/// rule of [`forms`](super::forms) (a 12-character window), so that a
/// short run of ordinary bytes (`4C 69 76 65 54 6F 6B`, a MAC address) is data.
pub(super) const MIN_RUN_BYTES: usize = MIN_WINDOW;

/// Ends one run's hex and begins the next in [`byte_runs`]' text: never
/// in a form (forms are UTF-8).
const BETWEEN: u8 = 0xff;

/// Most characters between a dump line's last hex group and its end that
/// are skipped as its ASCII column (`  |Tk9&Zp3+Wm/x<Lq7|`).
const ASCII_COLUMN: usize = 40;

/// The hex (lower case) of the bytes of every run of byte tokens in `hay`
/// of [`MIN_RUN_BYTES`]+ bytes, runs separated by [`BETWEEN`], read as hex
/// tokens and as decimal ones; and for each hex character, the range of
/// `hay` (its token) it comes from.
pub(super) fn byte_runs(hay: &[u8]) -> (Vec<u8>, Vec<(usize, usize)>) {
    let mut out = (Vec::new(), Vec::new());
    if hay.len() < MIN_RUN_BYTES {
        return out;
    }
    let (n, mut i) = (hay.len(), 0);
    while i < n {
        // Word starts only: a word that is no token is skipped whole.
        let class = CLASS[hay[i] as usize];
        if class == OTHER {
            i += 1;
            continue;
        }
        // The word's end, and whether it may be a token (hex digits, `0x` first).
        let (mut end, mut digits_only) = (i + 1, class == HEX_DIGIT);
        while end < n && CLASS[hay[end] as usize] != OTHER {
            digits_only &=
                CLASS[hay[end] as usize] == HEX_DIGIT || end == i + 1 && hay[i] == b'0' && hay[end] | 0x20 == b'x';
            end += 1;
        }
        let mut next = end;
        // A run goes on after the word: a separator, then another token.
        let goes_on = || {
            let j = separator(hay, end, true);
            j > end && j < n && CLASS[hay[j] as usize] == HEX_DIGIT
        };
        if digits_only && end - i <= 10 && goes_on() {
            for hex in [true, false] {
                next = next.max(run(hay, i, hex, &mut out));
            }
        }
        i = next;
        while i < n && CLASS[hay[i] as usize] != OTHER {
            i += 1;
        }
    }
    out
}

/// [`CLASS`] of a byte that is no letter or digit.
const OTHER: u8 = 0;
/// [`CLASS`] of a letter that is no hex digit.
const LETTER: u8 = 1;
/// [`CLASS`] of a hex digit (decimal digits too).
const HEX_DIGIT: u8 = 2;

/// Each byte's class, looked up: [`byte_runs`] looks at every byte of
/// every text redacted (a call per byte is slow in unoptimized builds).
const CLASS: [u8; 256] = {
    let mut class = [OTHER; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        class[b] = if c.is_ascii_hexdigit() {
            HEX_DIGIT
        } else if c.is_ascii_alphanumeric() {
            LETTER
        } else {
            OTHER
        };
        b += 1;
    }
    class
};

/// Reads the run of tokens (hex or decimal) starting at `i` into `out`
/// when it holds [`MIN_RUN_BYTES`]+ bytes; returns its end (`i` when none).
fn run(hay: &[u8], i: usize, hex: bool, out: &mut (Vec<u8>, Vec<(usize, usize)>)) -> usize {
    let mut bytes: Vec<(u8, (usize, usize))> = Vec::new();
    let mut j = i;
    let mut end = i;
    while let Some((decoded, n, token_end)) = token(hay, j, hex) {
        bytes.extend(decoded[..n].iter().map(|&b| (b, (j, token_end))));
        end = token_end;
        j = separator(hay, token_end, hex);
    }
    if bytes.len() >= MIN_RUN_BYTES {
        for (b, from) in bytes {
            for digit in [b >> 4, b & 0xf] {
                out.0.push(b"0123456789abcdef"[usize::from(digit)]);
                out.1.push(from);
            }
        }
        out.0.push(BETWEEN);
        out.1.push((end, end));
    }
    end
}

/// The ranges of `found` (matches in [`byte_runs`]' text, `start..end`)
/// merged, of [`MIN_RUN_BYTES`]+ bytes (twice as many hex characters):
/// the windows of a held value's hex are 6 bytes; a run showing 12+ of
/// its bytes is covered by overlapping ones.
pub(super) fn accepted(mut found: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    found.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (s, e) in found {
        match merged.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    merged.retain(|(s, e)| e - s >= 2 * MIN_RUN_BYTES);
    merged
}

/// The byte token at `hay[i]` and its end: hex `54`/`6b`/`0x54`/`b`, or a
/// group of 2–4 bytes (`546b`, `546b3926`: `xxd`); decimal `84` (0–255).
/// Not followed by a letter or digit.
fn token(hay: &[u8], i: usize, hex: bool) -> Option<([u8; 4], usize, usize)> {
    let rest = hay.get(i..)?;
    let prefixed = hex && rest.len() > 2 && rest[0] == b'0' && matches!(rest[1], b'x' | b'X');
    let start = if prefixed { 2 } else { 0 };
    // A plain loop: this runs at every word start (iterator chains are slow unoptimized).
    let mut digits = 0;
    while digits < 9
        && start + digits < rest.len()
        && (rest[start + digits].is_ascii_digit() || hex && rest[start + digits].is_ascii_hexdigit())
    {
        digits += 1;
    }
    let end = start + digits;
    if digits == 0 || rest.get(end).is_some_and(u8::is_ascii_alphanumeric) {
        return None;
    }
    let digit = |b: u8| u32::from(if b.is_ascii_digit() { b - b'0' } else { (b | 0x20) - b'a' + 10 });
    let value = |ds: &[u8], radix: u32| ds.iter().fold(0u32, |n, &d| n * radix + digit(d));
    let ds = &rest[start..end];
    let mut bytes = [0u8; 4];
    let n = if !hex {
        (digits <= 3).then_some(())?;
        bytes[0] = u8::try_from(value(ds, 10)).ok()?;
        1
    } else if digits <= 2 {
        bytes[0] = u8::try_from(value(ds, 16)).ok()?;
        1
    } else if digits % 2 == 0 && digits <= 8 {
        for (k, pair) in ds.chunks(2).enumerate() {
            bytes[k] = u8::try_from(value(pair, 16)).ok()?;
        }
        digits / 2
    } else {
        return None;
    };
    Some((bytes, n, i + end))
}

/// Where the next token may start after a token ending at `at`: blanks
/// (and `\n`/`\t` escapes), at most one other character that is not a
/// letter or digit, blanks again; at a new line, a dump's offset
/// (`00000010:`); in hex, a dump line's ASCII column up to the next line.
fn separator(hay: &[u8], at: usize, hex: bool) -> usize {
    let (mut j, mut line) = blanks(hay, at);
    if hay.get(j).is_some_and(|b| b.is_ascii_punctuation() && *b != b'\\') {
        let (k, l) = blanks(hay, j + 1);
        j = k;
        line |= l;
    }
    if j == at {
        return at;
    }
    if hex && hay[at..j].starts_with(b"  ") && token(hay, j, true).is_none() {
        // An ASCII column: skipped to the next line's offset.
        if let Some(nl) = hay[j..].iter().take(ASCII_COLUMN).position(|b| *b == b'\n') {
            let (k, _) = blanks(hay, j + nl + 1);
            j = k;
            line = true;
        }
    }
    if hex && line {
        j = offset_end(hay, j).unwrap_or(j);
    }
    j
}

/// The end of the blanks from `at` (spaces, tabs, newlines, and `\n`,
/// `\r`, `\t` written as escapes), and whether they hold a new line.
fn blanks(hay: &[u8], mut at: usize) -> (usize, bool) {
    let mut line = false;
    loop {
        match hay.get(at) {
            Some(b' ' | b'\t' | b'\r') => at += 1,
            Some(b'\n') => {
                at += 1;
                line = true;
            }
            Some(b'\\') if matches!(hay.get(at + 1), Some(b'n' | b'r' | b't')) => {
                line |= hay[at + 1] == b'n';
                at += 2;
            }
            _ => return (at, line),
        }
    }
}

/// The end of a dump line's offset at `at` (`00000010:` of `xxd`,
/// `00000010  ` of `hexdump -C`: 6–8 hex digits and a `:` or two blanks).
fn offset_end(hay: &[u8], at: usize) -> Option<usize> {
    let digits = hay.get(at..)?.iter().take(9).take_while(|b| b.is_ascii_hexdigit()).count();
    if !(6..=8).contains(&digits) {
        return None;
    }
    let after = at + digits;
    match hay.get(after..)? {
        [b':', ..] => Some(blanks(hay, after + 1).0),
        [b' ', b' ', ..] => Some(blanks(hay, after).0),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(text: &str) -> Vec<String> {
        let (hex, _) = byte_runs(text.as_bytes());
        hex.split(|b| *b == BETWEEN)
            .filter(|r| !r.is_empty())
            .map(|r| String::from_utf8_lossy(r).into_owned())
            .collect()
    }

    #[test]
    fn runs_are_read_back_to_their_bytes_whatever_the_separator() {
        let want = "546b39265a70332b576d2f783c4c7137";
        for text in [
            "x 54-6B-39-26-5A-70-33-2B-57-6D-2F-78-3C-4C-71-37 y",
            "x 54,6b,39,26,5a,70,33,2b,57,6d,2f,78,3c,4c,71,37 y",
            "x [0x54, 0x6b, 0x39, 0x26, 0x5a, 0x70, 0x33, 0x2b, 0x57, 0x6d, 0x2f, 0x78, 0x3c, 0x4c, 0x71, 0x37]",
            "[\n    0x54,\n    0x6b,\n    0x39,\n    0x26,\n    0x5a,\n    0x70,\n    0x33,\n    0x2b,\n    0x57,\n    0x6d,\n    0x2f,\n    0x78,\n    0x3c,\n    0x4c,\n    0x71,\n    0x37,\n]",
            "00000000: 546b 3926 5a70 332b  Tk9&Zp3+\n00000008: 576d 2f78 3c4c 7137  Wm/x<Lq7\n",
        ] {
            assert!(decoded(text).iter().any(|r| r.contains(want)), "{text}: {:?}", decoded(text));
        }
        assert!(decoded("84;107;57;38;90;112;51;43;87;109;47;120").contains(&"546b39265a70332b576d2f78".to_string()));
        // Short runs are not read.
        assert!(decoded("mac 4c:69:76:65:00:11 up, 10.0.0.1").is_empty());
    }
}

#[cfg(test)]
mod masked {
    use super::super::Redactor;

    const TOKEN: &str = "LiveTokQ7h3k9q2w8e5r1tZZ";
    const PASSWORD: &str = "Tk9&Zp3+Wm/x<Lq7>Vb2=Hd5Rr";

    fn join(value: &str, each: impl Fn(u8) -> String, sep: &str) -> String {
        value.bytes().map(each).collect::<Vec<_>>().join(sep)
    }

    /// The renderings break-it 34 H1 found stored and printed whole.
    fn renderings(v: &str) -> Vec<(&'static str, String)> {
        let b = v.as_bytes();
        let lines = |per: usize, line: &dyn Fn(usize, &[u8]) -> String| {
            b.chunks(per).enumerate().map(|(n, c)| line(n * per, c)).collect::<Vec<_>>().join("\n")
        };
        vec![
            ("hex_dash", join(v, |c| format!("{c:02X}"), "-")),
            ("hex_comma", join(v, |c| format!("{c:02x}"), ",")),
            ("0x_comma", join(v, |c| format!("0x{c:02x}"), ",")),
            ("0x_space", join(v, |c| format!("0x{c:02x}"), " ")),
            ("rust_x", format!("[{}]", join(v, |c| format!("{c:x}"), ", "))),
            ("rust_0x", format!("[{}]", join(v, |c| format!("0x{c:02x}"), ", "))),
            ("rust_pretty", format!("[\n{}]", b.iter().map(|c| format!("    0x{c:02x},\n")).collect::<String>())),
            ("dec_space", join(v, |c| c.to_string(), " ")),
            ("dec_dash", join(v, |c| c.to_string(), "-")),
            ("dec_semi", join(v, |c| c.to_string(), ";")),
            ("octal", b.iter().map(|c| format!("\\{c:03o}")).collect()),
            ("escape_U", b.iter().map(|c| format!("\\U{c:08x}")).collect()),
            ("quoted_printable", b.iter().map(|c| format!("={c:02X}")).collect()),
            (
                "xxd",
                lines(16, &|at, c| {
                    let groups: Vec<String> =
                        c.chunks(2).map(|g| g.iter().map(|x| format!("{x:02x}")).collect()).collect();
                    format!("{at:08x}: {:<40} {}", groups.join(" "), String::from_utf8_lossy(c))
                }),
            ),
            ("openssl", format!("    {}", lines(15, &|_, c| join_bytes(c, ":")).replace('\n', ":\n    "))),
            ("od", lines(16, &|_, c| format!(" {}", join_bytes(c, " ")))),
            ("hex_gap", b.chunks(4).map(|c| join_bytes(c, "")).collect::<Vec<_>>().join(" ")),
        ]
    }

    fn join_bytes(c: &[u8], sep: &str) -> String {
        c.iter().map(|x| format!("{x:02x}")).collect::<Vec<_>>().join(sep)
    }

    /// Break-it 34 H1: a held token or Basic password echoed as bytes with
    /// any separator (`-`, `,`, `;`, `0x`, Rust's `{:x?}`, one per line,
    /// decimal, octal escapes, an `xxd` dump, `openssl`'s wrapped blocks)
    /// was stored and printed whole; only `:`/` ` hex and `[76, 105, …]`
    /// were masked.
    #[test]
    fn a_held_value_rendered_as_bytes_with_any_separator_is_masked() {
        for value in [TOKEN, PASSWORD] {
            let basic = format!("admin:{value}");
            for r in [Redactor::new([value, basic.as_str()]), Redactor::for_records([value, basic.as_str()])] {
                for (name, form) in renderings(value) {
                    let shown = r.redact(&format!("F[{name}]= {form} (end)"));
                    let want = match name {
                        "rust_x" | "rust_0x" => "[***]",
                        "rust_pretty" => "[\n    ***,\n]",
                        "openssl" => "    ***",
                        "od" => " ***",
                        // The run starts after its first separator.
                        "quoted_printable" => "=***",
                        // Its offset kept; the last line's ASCII column is the value's end.
                        "xxd" => "00000000: *** ***",
                        _ => "***",
                    };
                    let shown_squeezed = if name == "xxd" {
                        shown.split_whitespace().collect::<Vec<_>>().join(" ")
                    } else {
                        shown.clone()
                    };
                    let want_squeezed = if name == "xxd" {
                        format!("F[xxd]= {want} (end)")
                    } else {
                        format!("F[{name}]= {want} (end)")
                    };
                    assert_eq!(shown_squeezed, want_squeezed, "{value} as {name}: {form:?} → {shown:?}");
                }
                // Cut to 12+ bytes at both ends, with any separator: masked.
                let piece = &value.as_bytes()[5..18];
                let said = format!("got {} …", piece.iter().map(|c| format!("{c:02x}")).collect::<Vec<_>>().join("|"));
                assert_eq!(r.redact(&said), "got *** …", "{said}");
                // 11 bytes are data (an ordinary run of bytes can hold that many).
                let said = format!(
                    "got {} …",
                    value.as_bytes()[5..16].iter().map(u8::to_string).collect::<Vec<_>>().join(";")
                );
                assert_eq!(r.redact(&said), said);
            }
        }
        // Ordinary byte runs are kept.
        let r = Redactor::new([TOKEN, PASSWORD]);
        for kept in [
            "mac 4c-69-76-65-00-11, ip 10.0.0.1",
            "0x00,0x01,0x02,0x03,0x04,0x05,0x06,0x07,0x08,0x09,0x0a,0x0b,0x0c,0x0d",
            "00000000: 0a1b 2c3d 4e5f 6071 8293 a4b5 c6d7 e8f9  ..,=N_`q........",
            "ports 80;443;8080;9090;10250;10255;2379;2380 open",
        ] {
            assert_eq!(r.redact(kept), kept);
        }
    }
}
