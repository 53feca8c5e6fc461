//! Gzip input with a bound on what it may expand to: a 1 MB `.json.gz` of
//! spaces expands to 1 GiB, and was decompressed whole (2.13 GiB peak,
//! kdrift issue 34). Every gzip reader of `ingest file` (the whole-file
//! reader and the NDJSON stream) reads through [`Capped`], which fails with
//! [`std::io::ErrorKind::FileTooLarge`] and a message naming the cap and the
//! flag that raises it once the stream passes its [`DecompressedCap`].
//!
//! Concatenated gzip members are read one after the other ([`Members`]),
//! as `gzip -d` reads them; bytes between two members that are no gzip
//! member (`cat a.gz junk b.gz`) are skipped to the next member header
//! (`1f 8b 08`), said once by a [`Skipped`] error, and the members after
//! them are read (break-it 41 G11: `m1 + "GARBAGE" + m2` kept 200 of 400
//! records). Bytes after the last member are said the same way and
//! ignored, as `gzip -d` ignores "trailing garbage".
//!
//! A member whose data is damaged (bad deflate data, or a CRC or length
//! that does not match) is said the same way ([`Skipped::damage`]), with
//! the lines of decompressed data that came from it (suspect: a CRC
//! failure is only found at the member's end, after its lines were given
//! out), and reading resyncs at the next plausible member header after
//! the damage (break-it 43 N5: the intact members after a damaged one were
//! lost). A member's lines are not held back until its CRC checks: a member
//! may be gigabytes, and this reader holds a fixed 64 KiB; a line of a
//! member failing only its CRC may be stored though corrupt, and the error
//! names the member's lines to look at.

use std::io::{self, BufRead, Read};

/// Times its compressed size a gzip file may expand to by default.
pub const DEFAULT_RATIO: u64 = 100;

/// The least a gzip file may expand to by default, bytes (64 MiB): small
/// files compress well too.
pub const DEFAULT_FLOOR: u64 = 64 << 20;

/// The flag that sets [`DecompressedCap::Bytes`].
pub const FLAG: &str = "--max-decompressed";

/// How far a gzip file may expand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DecompressedCap {
    /// `DEFAULT_RATIO` times its compressed size, at least `DEFAULT_FLOOR`
    /// (Kubernetes JSON and YAML compress 5–30×).
    #[default]
    Default,
    /// At most this many bytes, whatever the compressed size (`--max-decompressed`).
    Bytes(u64),
}

impl DecompressedCap {
    /// The cap in bytes for a file of `compressed` bytes.
    pub fn bytes_for(self, compressed: u64) -> u64 {
        match self {
            DecompressedCap::Default => compressed.saturating_mul(DEFAULT_RATIO).max(DEFAULT_FLOOR),
            DecompressedCap::Bytes(b) => b,
        }
    }

    /// The message of a file of `compressed` bytes that expands past the cap.
    pub fn exceeded_message(self, compressed: u64) -> String {
        let cap = self.bytes_for(compressed);
        let rule = match self {
            DecompressedCap::Default if cap == DEFAULT_FLOOR => {
                format!("the default cap ({DEFAULT_RATIO}× its compressed size, at least {})", human(DEFAULT_FLOOR))
            }
            DecompressedCap::Default => {
                format!("the default cap ({DEFAULT_RATIO}× its {} compressed size)", human(compressed))
            }
            DecompressedCap::Bytes(_) => format!("the cap {FLAG} sets"),
        };
        format!(
            "gzip data expands to more than {} ({cap} bytes, {rule}); stopped decompressing (a decompression \
             bomb, or a dump that compresses unusually well: raise the cap with {FLAG} SIZE, e.g. {FLAG} 8GiB)",
            human(cap)
        )
    }
}

/// `n` bytes for people (`64 MiB`, `1.5 GiB`, `900 B`).
pub fn human(n: u64) -> String {
    const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (unit, size) in UNITS {
        if n >= size {
            let value = n as f64 / size as f64;
            return if n.is_multiple_of(size) { format!("{} {unit}", n / size) } else { format!("{value:.1} {unit}") };
        }
    }
    format!("{n} B")
}

/// The units [`parse_size`] takes, as its messages and the flags' help list them.
pub const SIZE_UNITS: &str = "kB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024)";

/// The largest size [`parse_size`] takes: 2^63 − 1 bytes (8 EiB; the
/// store's sizes are signed 64-bit).
pub const MAX_SIZE: u64 = i64::MAX as u64;

/// Parses a size as users type it: bytes (`1048576`), or a number with a
/// unit as Kubernetes quantities have them — decimal `k`, `M`, `G`, `T`
/// (powers of 1000, with or without `B`: `10GB`, `8G`) or binary `Ki`,
/// `Mi`, `Gi`, `Ti` (powers of 1024, with or without `B`: `512MiB`,
/// `1.5 KiB`); letters in either case (`2gb`, `64mib`).
///
/// # Errors
/// A message saying what was expected: the units ([`SIZE_UNITS`]), at
/// least 1 byte, at most [`MAX_SIZE`].
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let not_a_size = || format!("{text:?} is not a size: expected bytes, or a number with {SIZE_UNITS}");
    let digits = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let unit = unit.trim().to_ascii_lowercase();
    let unit = unit.strip_suffix('b').unwrap_or(&unit);
    let (prefix, binary) = match unit.strip_suffix('i') {
        Some(p) => (p, true),
        None => (unit, false),
    };
    let power = match prefix {
        "" if !binary => 0,
        "k" => 1,
        "m" => 2,
        "g" => 3,
        "t" => 4,
        _ => return Err(not_a_size()),
    };
    let base: f64 = if binary { 1024.0 } else { 1000.0 };
    let value: f64 = number.parse().map_err(|_| not_a_size())?;
    let bytes = value * base.powi(power);
    if !(bytes.is_finite() && bytes >= 1.0) {
        return Err(format!("{text:?} is not a size kdrift can use: expected at least 1 byte"));
    }
    if bytes > MAX_SIZE as f64 {
        return Err(format!("{text:?} is too large: expected at most {MAX_SIZE} bytes (8 EiB)"));
    }
    Ok((bytes as u64).min(MAX_SIZE))
}

/// A reader that fails once more than `cap` bytes came through it.
pub struct Capped<R> {
    inner: R,
    read: u64,
    cap: u64,
    message: String,
}

impl<R: Read> Capped<R> {
    /// Wraps `inner` (a gzip decoder of a file of `compressed` bytes).
    pub fn new(inner: R, cap: DecompressedCap, compressed: u64) -> Capped<R> {
        Capped { inner, read: 0, cap: cap.bytes_for(compressed), message: cap.exceeded_message(compressed) }
    }
}

impl<R: Read> Read for Capped<R> {
    /// Reads up to the cap; at the cap, one more byte is probed: none (the
    /// stream ends exactly there) is the end, any is the error. The bytes
    /// before the cap are all given out, so the lines they hold load.
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.read >= self.cap {
            let mut probe = [0u8; 1];
            return match self.inner.read(&mut probe)? {
                0 => Ok(0),
                _ => {
                    self.read = self.cap + 1;
                    Err(io::Error::new(io::ErrorKind::FileTooLarge, self.message.clone()))
                }
            };
        }
        let room = (self.cap - self.read).min(buf.len() as u64) as usize;
        let n = self.inner.read(&mut buf[..room])?;
        self.read += n as u64;
        Ok(n)
    }
}

/// The first bytes of a gzip member: the magic number and deflate (RFC 1952 §2.3.1).
const MEMBER_HEADER: [u8; 3] = [0x1f, 0x8b, 0x08];

/// The fixed part of a gzip member header (RFC 1952 §2.3).
const HEADER_BYTES: usize = 10;

/// Whether the 10 bytes at `h` can open a gzip member, beyond its magic
/// number and method: no reserved flag bit set (FLG bits 5–7), XFL 0, 2 or
/// 4, and an OS value RFC 1952 defines (0–13, or 255 unknown). What every
/// gzip writer sets; bytes of junk that happen to hold `1f 8b 08` seldom
/// pass it.
fn plausible_header(h: &[u8]) -> bool {
    h.len() >= HEADER_BYTES && h[3] & 0xe0 == 0 && matches!(h[8], 0 | 2 | 4) && (h[9] <= 13 || h[9] == 255)
}

/// Bytes of a gzip file that are no gzip member, skipped: the error one
/// read of [`Members`] returns (an [`io::Error`] of kind
/// [`io::ErrorKind::InvalidData`] holding it, [`skipped_in`]); the next
/// read goes on with the member after them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Skipped {
    /// The first byte skipped (0-based offset in the compressed file).
    pub from: u64,
    /// The byte after the last one skipped: the next member's first, or the file's size.
    pub to: u64,
    /// No member follows: the bytes end the file.
    pub trailing: bool,
    /// When the skip follows a damaged member (the bytes from `from` are
    /// those after the damage, possibly none): how it is damaged.
    pub damage: Option<Damage>,
}

/// A damaged gzip member, as [`Skipped`] says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Damage {
    /// Its first byte (0-based offset in the compressed file).
    pub member_at: u64,
    /// Its data inflated whole but fails its CRC or length check (else
    /// the deflate data itself is bad).
    pub check_only: bool,
    /// The first and last line (1-based, of the decompressed data) given
    /// out from it: suspect.
    pub lines: (u64, u64),
}

impl std::fmt::Display for Skipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (from, to, n) = (self.from, self.to, self.to - self.from);
        if let Some(d) = self.damage {
            let how =
                if d.check_only { "its data fails its CRC or length check" } else { "its deflate data is corrupt" };
            let (first, last) = d.lines;
            write!(
                f,
                "the gzip member at compressed byte {} is damaged ({how}): the decompressed lines {first} to {last} \
                 came from it and may be corrupt",
                d.member_at
            )?;
            return if self.trailing {
                write!(f, "; no gzip member follows it")
            } else {
                write!(f, "; reading goes on at the next gzip member (1f 8b 08), at compressed byte {to}")
            };
        }
        if self.trailing {
            write!(
                f,
                "the {n} bytes after the last gzip member (compressed bytes {from} to {to}) are not gzip data: \
                 ignored, as gzip -d ignores trailing garbage"
            )
        } else {
            write!(
                f,
                "compressed bytes {from} to {to} ({n} bytes between two gzip members) are not gzip data: skipped to \
                 the next gzip member (1f 8b 08) at byte {to}, whose records are read"
            )
        }
    }
}

impl std::error::Error for Skipped {}

/// The [`Skipped`] an error of [`Members`] is, if it is one.
pub fn skipped_in(e: &io::Error) -> Option<Skipped> {
    e.get_ref()?.downcast_ref::<Skipped>().copied()
}

/// The compressed input of [`Members`]: buffered, counting the bytes
/// consumed, and able to look a few bytes ahead (a member header may
/// straddle two reads).
struct Input<R> {
    inner: R,
    buf: Vec<u8>,
    pos: usize,
    offset: u64,
}

/// Bytes read from the compressed input at a time.
const INPUT_BUFFER: usize = 64 << 10;

/// Bytes read at a time to look ahead ([`Input::peek`]).
const PEEK_CHUNK: usize = 4096;

impl<R: Read> Input<R> {
    /// At least `n` bytes ahead, fewer only at the end of the input.
    fn peek(&mut self, n: usize) -> io::Result<&[u8]> {
        if self.buf.len() - self.pos < n {
            self.buf.drain(..self.pos);
            self.pos = 0;
            let mut chunk = [0u8; PEEK_CHUNK];
            while self.buf.len() < n {
                let got = self.inner.read(&mut chunk)?;
                if got == 0 {
                    break;
                }
                self.buf.extend_from_slice(&chunk[..got]);
            }
        }
        Ok(&self.buf[self.pos..])
    }
}

impl<R: Read> Read for Input<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let data = self.fill_buf()?;
        let n = data.len().min(out.len());
        out[..n].copy_from_slice(&data[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: Read> BufRead for Input<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pos == self.buf.len() {
            self.buf.resize(INPUT_BUFFER, 0);
            let got = self.inner.read(&mut self.buf)?;
            self.buf.truncate(got);
            self.pos = 0;
        }
        Ok(&self.buf[self.pos..])
    }

    fn consume(&mut self, n: usize) {
        let n = n.min(self.buf.len() - self.pos);
        self.pos += n;
        self.offset += n as u64;
    }
}

/// The decompressed data of a gzip file's members, one after the other
/// (what `flate2`'s `MultiGzDecoder` gives), going on past bytes between
/// two members that are no member: one read returns a [`Skipped`] error
/// naming them, the next reads the next member (see the module doc). A
/// damaged member (bad deflate data, CRC) is an error as with
/// `MultiGzDecoder`.
pub struct Members<R: Read> {
    state: State<R>,
    /// Lines given out so far (newlines), and the last byte given out.
    lines: u64,
    last: Option<u8>,
    /// The member being read: its first byte and the line it starts on.
    member: (u64, u64),
    /// A newline to give out before the next member's data: the damaged
    /// member's last line ended without one and must not run into it.
    newline_owed: bool,
}

enum State<R: Read> {
    /// Between two members (or at the start): looking at the next bytes;
    /// after a damaged member, how.
    Between(Input<R>, Option<Damage>),
    /// Inside a member.
    Member(Box<flate2::bufread::GzDecoder<Input<R>>>),
    /// The input ended, or a member was damaged (its error given).
    Done,
}

impl<R: Read> Members<R> {
    /// Reads the gzip members of `inner` (positioned at the first).
    pub fn new(inner: R) -> Members<R> {
        Members {
            state: State::Between(Input { inner, buf: Vec::new(), pos: 0, offset: 0 }, None),
            lines: 0,
            last: None,
            member: (0, 1),
            newline_owed: false,
        }
    }
}

impl<R: Read> Read for Members<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            match std::mem::replace(&mut self.state, State::Done) {
                State::Done => return Ok(0),
                State::Member(decoder) if self.newline_owed => {
                    self.newline_owed = false;
                    self.state = State::Member(decoder);
                    buf[0] = b'\n';
                    self.count(&buf[..1]);
                    return Ok(1);
                }
                State::Member(mut decoder) => match decoder.read(buf) {
                    Ok(0) => self.state = State::Between(decoder.into_inner(), None),
                    Ok(n) => {
                        self.state = State::Member(decoder);
                        self.count(&buf[..n]);
                        return Ok(n);
                    }
                    // Bad deflate data, a CRC or length that does not
                    // match (flate2 says InvalidInput; InvalidData for a
                    // bad header): resync after it (break-it 43 N5). A
                    // member cut by the end of the file (UnexpectedEof) ends it.
                    Err(e) if matches!(e.kind(), io::ErrorKind::InvalidInput | io::ErrorKind::InvalidData) => {
                        let check_only = e.to_string().contains("matching");
                        let last_line = self.lines + u64::from(self.last.is_some_and(|b| b != b'\n'));
                        let damage = Damage {
                            member_at: self.member.0,
                            check_only,
                            lines: (self.member.1, last_line.max(self.member.1)),
                        };
                        self.newline_owed = self.last.is_some_and(|b| b != b'\n');
                        self.state = State::Between(decoder.into_inner(), Some(damage));
                    }
                    Err(e) => return Err(e),
                },
                State::Between(mut input, damage) => {
                    let from = input.offset;
                    loop {
                        // After damage, only a plausible header: the damaged
                        // member's own bytes may hold `1f 8b 08`.
                        let at_start = input.offset == from && damage.is_none();
                        let ahead = input.peek(HEADER_BYTES)?;
                        // Right after a member any header is taken; inside
                        // skipped bytes only a plausible one (break-it 42
                        // M2: `1f 8b 08` in the junk ended the file there).
                        if ahead.is_empty()
                            || (ahead.starts_with(&MEMBER_HEADER) && (at_start || plausible_header(ahead)))
                        {
                            break;
                        }
                        // Up to the next byte that may open a header.
                        let skip =
                            ahead[1..].iter().position(|b| *b == MEMBER_HEADER[0]).map_or(ahead.len(), |p| p + 1);
                        input.consume(skip);
                    }
                    let (to, trailing) = (input.offset, input.peek(1)?.is_empty());
                    if !trailing {
                        self.member = (to, self.lines + 1 + u64::from(self.newline_owed));
                        self.state = State::Member(Box::new(flate2::bufread::GzDecoder::new(input)));
                    }
                    if to > from || damage.is_some() {
                        let skipped = Skipped { from, to, trailing, damage };
                        return Err(io::Error::new(io::ErrorKind::InvalidData, skipped));
                    }
                }
            }
        }
    }
}

impl<R: Read> Members<R> {
    /// Counts the lines of `out`, given out.
    fn count(&mut self, out: &[u8]) {
        self.lines += out.iter().filter(|b| **b == b'\n').count() as u64;
        self.last = out.last().copied().or(self.last);
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(bytes).expect("gzip");
        e.finish().expect("gzip")
    }

    #[test]
    fn a_stream_past_its_cap_fails_with_the_cap_and_the_flag_and_one_within_reads_whole() {
        let spaces = vec![b' '; 3 << 20];
        let gz = gzip(&spaces);
        let mut out = Vec::new();
        let err = Capped::new(flate2::read::MultiGzDecoder::new(&gz[..]), DecompressedCap::Bytes(1 << 20), 0)
            .read_to_end(&mut out)
            .expect_err("over the cap");
        assert_eq!(err.kind(), io::ErrorKind::FileTooLarge);
        assert_eq!(
            err.to_string(),
            "gzip data expands to more than 1 MiB (1048576 bytes, the cap --max-decompressed sets); stopped \
             decompressing (a decompression bomb, or a dump that compresses unusually well: raise the cap with \
             --max-decompressed SIZE, e.g. --max-decompressed 8GiB)"
        );
        assert_eq!(out.len(), 1 << 20, "every byte up to the cap is given out, none past it");
        // Exactly the cap: read whole.
        let mut out = Vec::new();
        Capped::new(flate2::read::MultiGzDecoder::new(&gz[..]), DecompressedCap::Bytes(3 << 20), 0)
            .read_to_end(&mut out)
            .expect("within the cap");
        assert_eq!(out.len(), 3 << 20);
    }

    /// `Members` read to the end: the data and each error (its text,
    /// and whether it was a [`Skipped`]).
    fn members(gz: &[u8]) -> (Vec<u8>, Vec<(String, Option<Skipped>)>) {
        let mut reader = Members::new(gz);
        let (mut out, mut errors) = (Vec::new(), Vec::new());
        loop {
            match reader.read_to_end(&mut out) {
                Ok(_) => return (out, errors),
                Err(e) => {
                    let skipped = skipped_in(&e);
                    errors.push((e.to_string(), skipped));
                    if skipped.is_none() {
                        return (out, errors);
                    }
                }
            }
        }
    }

    #[test]
    fn garbage_between_gzip_members_is_skipped_to_the_next_member_and_named_by_its_bytes() {
        // Break-it 41 G11: `m1 + "GARBAGE" + m2` kept m1's records only.
        let (m1, m2) = (gzip(b"one\ntwo\n"), gzip(b"three\n"));
        let (out, errors) = members(&[m1.clone(), m2.clone()].concat());
        assert_eq!((out.as_slice(), errors.len()), (&b"one\ntwo\nthree\n"[..], 0));
        // Garbage holding 1f and 1f 8b (no member header) between them, and after the last.
        let junk = b"GARBAGE\x1f\x1f\x8b\x00!";
        let gz = [m1.clone(), junk.to_vec(), m2.clone(), b"\0\0\0".to_vec()].concat();
        let (out, errors) = members(&gz);
        assert_eq!(out, b"one\ntwo\nthree\n");
        let (at, to) = (m1.len() as u64, (m1.len() + junk.len()) as u64);
        assert_eq!(
            errors,
            [
                (
                    format!(
                        "compressed bytes {at} to {to} (12 bytes between two gzip members) are not gzip data: \
                         skipped to the next gzip member (1f 8b 08) at byte {to}, whose records are read"
                    ),
                    Some(Skipped { from: at, to, trailing: false, damage: None })
                ),
                (
                    format!(
                        "the 3 bytes after the last gzip member (compressed bytes {} to {}) are not gzip data: \
                         ignored, as gzip -d ignores trailing garbage",
                        gz.len() - 3,
                        gz.len()
                    ),
                    Some(Skipped { from: gz.len() as u64 - 3, to: gz.len() as u64, trailing: true, damage: None })
                )
            ]
        );
        // A member header straddling two reads of the input (the first
        // look ahead reads PEEK_CHUNK bytes): its 1f the last byte of the first.
        let mut junk = vec![b'x'; PEEK_CHUNK - m1.len() - 1];
        junk.push(0x1f);
        junk.extend_from_slice(&m2[1..]);
        let (out, errors) = members(&[m1.clone(), junk, m2.clone()].concat());
        assert_eq!((out.as_slice(), errors.len()), (&b"one\ntwo\nthree\nthree\n"[..], 1), "{errors:?}");
        // A member failing its CRC: said with its lines, the members after it read.
        let mut bad = m2.clone();
        let len = bad.len();
        bad[len - 5] ^= 0xff; // its CRC
        let (out, errors) = members(&[m1.clone(), bad.clone(), m2.clone()].concat());
        assert_eq!(out, b"one\ntwo\nthree\nthree\n");
        let at = m1.len() as u64;
        let to = at + len as u64;
        let damage = Some(Damage { member_at: at, check_only: true, lines: (3, 3) });
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].1, Some(Skipped { from: to, to, trailing: false, damage }));
        assert_eq!(
            errors[0].0,
            format!(
                "the gzip member at compressed byte {at} is damaged (its data fails its CRC or length check): the \
                 decompressed lines 3 to 3 came from it and may be corrupt; reading goes on at the next gzip member \
                 (1f 8b 08), at compressed byte {to}"
            )
        );
    }

    #[test]
    fn a_member_with_corrupt_deflate_data_is_said_and_the_members_after_it_are_read() {
        // Break-it 43 N5: one changed byte of member 1 lost members 2 and 3 (42 of 300 lines kept).
        let lines = |m: usize| -> Vec<u8> { (0..100).flat_map(|i| format!("m{m}-line-{i}\n").into_bytes()).collect() };
        let (m1, m2, m3) = (gzip(&lines(1)), gzip(&lines(2)), gzip(&lines(3)));
        let mut bad = m1.clone();
        bad[12] ^= 0x55;
        let (out, errors) = members(&[bad, m2, m3].concat());
        let text = String::from_utf8_lossy(&out);
        let later: Vec<&str> = text.lines().filter(|l| l.starts_with("m2-") || l.starts_with("m3-")).collect();
        assert_eq!(later.len(), 200, "{errors:?}");
        assert_eq!(errors.len(), 1, "{errors:?}");
        let damage = errors[0].1.and_then(|s| s.damage).expect("damage");
        assert_eq!((damage.member_at, damage.check_only, damage.lines.0), (0, false, 1));
        assert!(errors[0]
            .0
            .starts_with("the gzip member at compressed byte 0 is damaged (its deflate data is corrupt)"));
    }

    #[test]
    fn a_member_header_inside_skipped_bytes_must_be_plausible() {
        // Break-it 42 M2: junk holding `1f 8b 08 00` then text ended the
        // file at that false header; the members after it were lost.
        let (a, b) = (gzip(b"one\n"), gzip(b"two\n"));
        let mut gz = a.clone();
        gz.extend_from_slice(b"JUNK\x1f\x8b\x08\x00JUNKJUNKJUNK");
        gz.extend_from_slice(&b);
        let (data, errors) = members(&gz);
        assert_eq!(data, b"one\ntwo\n");
        let to = (a.len() + 4 + 16) as u64;
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].1, Some(Skipped { from: a.len() as u64, to, trailing: false, damage: None }));
    }

    #[test]
    fn the_default_cap_is_a_hundred_times_the_compressed_size_and_at_least_64_mib() {
        assert_eq!(DecompressedCap::Default.bytes_for(1_000), 64 << 20);
        assert_eq!(DecompressedCap::Default.bytes_for(1 << 20), 100 << 20);
        assert_eq!(DecompressedCap::Bytes(5).bytes_for(1 << 20), 5);
        assert!(DecompressedCap::Default
            .exceeded_message(1 << 20)
            .starts_with("gzip data expands to more than 100 MiB (104857600 bytes, the default cap (100× its 1 MiB compressed size))"));
    }

    #[test]
    fn sizes_parse_in_bytes_and_binary_units() {
        assert_eq!(parse_size("1048576"), Ok(1 << 20));
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size("8G"), Ok(8_000_000_000));
        assert_eq!(parse_size("2gb"), Ok(2_000_000_000));
        assert_eq!(parse_size("10GB"), Ok(10_000_000_000));
        assert_eq!(parse_size("8Gi"), Ok(8 << 30));
        assert_eq!(parse_size("1.5 KiB"), Ok(1536));
        assert_eq!(parse_size("1.5kB"), Ok(1500));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("0").is_err());
        assert!(parse_size("3i").is_err());
        assert!(parse_size("3 parsecs").expect_err("unit").contains(SIZE_UNITS));
        assert_eq!(parse_size("9223372036854775807"), Ok(MAX_SIZE));
        assert_eq!(
            parse_size("18446744073709551615"),
            Err("\"18446744073709551615\" is too large: expected at most 9223372036854775807 bytes (8 EiB)".into())
        );
    }
}
