//! Gzip input with a bound on what it may expand to: a 1 MB `.json.gz` of
//! spaces expands to 1 GiB, and was decompressed whole (2.13 GiB peak,
//! kdrift issue 34). Every gzip reader of `ingest file` (the whole-file
//! reader and the NDJSON stream) reads through [`Capped`], which fails with
//! [`std::io::ErrorKind::FileTooLarge`] and a message naming the cap and the
//! flag that raises it once the stream passes its [`DecompressedCap`].

use std::io::{self, Read};

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
