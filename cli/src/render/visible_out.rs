//! Standard output for every command's document ([`stdout`]): control
//! characters other than newline and tab written visibly as they pass
//! ([`super::visible`]'s spelling: `\e`, `\r`, `\xNN`), so that no name or
//! message a plain-text line quotes (from an older store, a log line, an
//! argument) reaches the terminal as an escape sequence (issue 34). Table
//! cells are escaped whole already (newlines too: [`super::plain`]); JSON
//! and YAML documents hold none raw (their strings escape them), so they
//! pass unchanged.

use std::io::{StdoutLock, Write};

/// Standard output, locked, through [`VisibleOut`].
pub fn stdout() -> VisibleOut<StdoutLock<'static>> {
    VisibleOut::new(std::io::stdout().lock())
}

/// A writer passing text on with its control characters, other than `\n`
/// and `\t`, written visibly: C0 and DEL (one byte each in UTF-8) and C1
/// (U+0080–U+009F: `0xC2` then `0x80`–`0x9F`, which may straddle two writes).
pub struct VisibleOut<W: Write> {
    inner: W,
    /// The last write ended with `0xC2`, held back (the first byte of a C1
    /// control character, or of another character).
    carry: bool,
}

impl<W: Write> VisibleOut<W> {
    /// `inner` through this filter.
    pub fn new(inner: W) -> VisibleOut<W> {
        VisibleOut { inner, carry: false }
    }
}

/// Whether byte `b` alone is a control character written visibly.
fn escaped(b: u8) -> bool {
    (b < 0x20 && b != b'\n' && b != b'\t') || b == 0x7f
}

/// `\e`, `\r` or `\xNN` for control character `c`.
fn spelled(c: u32) -> String {
    match c {
        0x1b => "\\e".to_string(),
        0x0d => "\\r".to_string(),
        c => format!("\\x{c:02x}"),
    }
}

impl<W: Write> Write for VisibleOut<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if !self.carry && !buf.iter().any(|&b| escaped(b) || b == 0xc2) {
            self.inner.write_all(buf)?;
            return Ok(buf.len());
        }
        let mut out = Vec::with_capacity(buf.len() + 16);
        let mut pending = std::mem::take(&mut self.carry);
        for &b in buf {
            if pending {
                pending = false;
                if (0x80..=0x9f).contains(&b) {
                    out.extend_from_slice(spelled(u32::from(b)).as_bytes());
                    continue;
                }
                out.push(0xc2);
            }
            if b == 0xc2 {
                pending = true;
            } else if escaped(b) {
                out.extend_from_slice(spelled(u32::from(b)).as_bytes());
            } else {
                out.push(b);
            }
        }
        self.carry = pending;
        self.inner.write_all(&out)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Write> Drop for VisibleOut<W> {
    fn drop(&mut self) {
        if self.carry {
            let _ = self.inner.write_all(&[0xc2]);
        }
        let _ = self.inner.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_but_newline_and_tab_are_written_visibly_across_writes() {
        let mut out = VisibleOut::new(Vec::new());
        out.write_all(b"pod web\x1b[2J\tok\r\n").expect("write");
        // U+009B (CSI) split across two writes, then an é split the same way.
        out.write_all(b"a\xc2").expect("write");
        out.write_all(b"\x9bb \xc2").expect("write");
        out.write_all(b"\xa9 \x7f\x07\n").expect("write");
        let text = String::from_utf8(std::mem::take(&mut out.inner)).expect("utf-8");
        assert_eq!(text, "pod web\\e[2J\tok\\r\na\\x9bb \u{a9} \\x7f\\x07\n");
    }
}
