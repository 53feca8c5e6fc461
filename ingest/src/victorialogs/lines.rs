//! Splits a streamed response body into lines as chunks arrive, holding at
//! most one unfinished line (capped) in memory: a line longer than the cap
//! is dropped as it arrives and handed on as [`Line::TooLong`]. A body that
//! ends without a final newline was cut off ([`LineSplitter::finish`]:
//! VictoriaLogs ends every row with `\n`), unless the transfer says the
//! body is whole ([`LineSplitter::finish_whole`]: its unfinished line is
//! its last line; break-it 42 H2). A bare `\r` ends a line too (a proxy or exporter writing
//! old-Mac line ends; a raw `\r` is never inside a JSON row), and `\r\n`
//! is one line end (break-it 31: rows joined by `\r` failed the window).

use super::error::Failure;

/// One completed line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line<'a> {
    /// Its bytes, without the newline.
    Bytes(&'a [u8]),
    /// A line longer than the cap: its length, bytes (not kept).
    TooLong(u64),
}

/// The callback receiving each completed line: `(1-based line number, line)`.
pub type OnLine<'a, E> = dyn FnMut(u64, Line<'_>) -> Result<(), E> + 'a;

/// Incremental line splitter.
#[derive(Debug)]
pub struct LineSplitter {
    partial: Vec<u8>,
    /// Bytes of the unfinished line past the cap, while it is skipped.
    skipping: Option<u64>,
    max_line: usize,
    line: u64,
    /// The last line ended with `\r`: a `\n` right after it ends no line.
    after_cr: bool,
}

impl LineSplitter {
    /// A splitter holding lines of at most `max_line` bytes.
    pub fn new(max_line: usize) -> LineSplitter {
        LineSplitter { partial: Vec::new(), skipping: None, max_line, line: 0, after_cr: false }
    }

    /// Feeds one chunk; calls `on_line(line_number, line)` for every line it
    /// completes (without the newline; blank lines included; a line longer
    /// than the cap as [`Line::TooLong`]).
    ///
    /// # Errors
    /// The first error `on_line` returns.
    pub fn push<E>(&mut self, chunk: &[u8], on_line: &mut OnLine<'_, E>) -> Result<(), E> {
        let mut rest = chunk;
        while let Some(pos) = rest.iter().position(|b| *b == b'\n' || *b == b'\r') {
            let (head, tail) = rest.split_at(pos);
            let crlf = tail[0] == b'\n' && self.after_cr && head.is_empty();
            self.after_cr = tail[0] == b'\r';
            if crlf {
                rest = &tail[1..];
                continue;
            }
            self.line += 1;
            if let Some(skipped) = self.skipping.take() {
                on_line(self.line, Line::TooLong(skipped + head.len() as u64))?;
            } else if self.partial.len() + head.len() > self.max_line {
                let len = (self.partial.len() + head.len()) as u64;
                self.partial = Vec::new();
                on_line(self.line, Line::TooLong(len))?;
            } else if self.partial.is_empty() {
                on_line(self.line, Line::Bytes(head))?;
            } else {
                self.partial.extend_from_slice(head);
                let whole = std::mem::take(&mut self.partial);
                on_line(self.line, Line::Bytes(&whole))?;
            }
            rest = &tail[1..];
        }
        if !rest.is_empty() {
            self.after_cr = false;
            if let Some(skipped) = &mut self.skipping {
                *skipped += rest.len() as u64;
            } else if self.partial.len() + rest.len() > self.max_line {
                // Not held: only its length is counted from here on.
                self.skipping = Some((self.partial.len() + rest.len()) as u64);
                self.partial = Vec::new();
            } else {
                self.partial.extend_from_slice(rest);
            }
        }
        Ok(())
    }

    /// The body ended: an unfinished line means it was truncated.
    ///
    /// # Errors
    /// [`Failure::Truncated`].
    pub fn finish(self) -> Result<u64, Failure> {
        match self.skipping {
            Some(bytes) => Err(Failure::Truncated { line: self.line + 1, bytes: bytes as usize }),
            None if self.partial.is_empty() => Ok(self.line),
            None => Err(Failure::Truncated { line: self.line + 1, bytes: self.partial.len() }),
        }
    }
}

impl LineSplitter {
    /// The body ended and the transfer says it is whole (a `Content-Length`
    /// met, a chunked body's end: [`super::client::framed`]): an unfinished
    /// line is no cut but the last line, handed to `on_line` like the
    /// others (as [`Line::TooLong`] past the cap). Returns the lines read.
    ///
    /// # Errors
    /// The error `on_line` returns.
    pub fn finish_whole<E>(mut self, on_line: &mut OnLine<'_, E>) -> Result<u64, E> {
        if let Some(skipped) = self.skipping.take() {
            self.line += 1;
            on_line(self.line, Line::TooLong(skipped))?;
        } else if !self.partial.is_empty() {
            self.line += 1;
            on_line(self.line, Line::Bytes(&self.partial))?;
        }
        Ok(self.line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(chunks: &[&[u8]], max: usize) -> (Vec<(u64, String)>, Result<u64, Failure>) {
        let mut s = LineSplitter::new(max);
        let mut out = Vec::new();
        for c in chunks {
            let r = s.push::<Failure>(c, &mut |n, l| {
                out.push((
                    n,
                    match l {
                        Line::Bytes(b) => String::from_utf8_lossy(b).to_string(),
                        Line::TooLong(len) => format!("<{len} bytes>"),
                    },
                ));
                Ok(())
            });
            if let Err(e) = r {
                return (out, Err(e));
            }
        }
        (out, s.finish())
    }

    #[test]
    fn lines_across_chunk_boundaries() {
        let (lines, end) = split(&[b"{\"a\"", b":1}\n{\"b\":2}\n\n{\"c\"", b":3}\n"], 100);
        assert_eq!(end, Ok(4));
        assert_eq!(
            lines,
            vec![(1, "{\"a\":1}".into()), (2, "{\"b\":2}".into()), (3, String::new()), (4, "{\"c\":3}".into())]
        );
    }

    /// Break-it 31: rows joined by a bare `\r` (the body one line to a
    /// `\n` reader, without a final `\n`) failed the whole window.
    #[test]
    fn a_bare_carriage_return_ends_a_line_and_crlf_is_one_line_end() {
        let (lines, end) = split(&[b"{\"a\":1}\r{\"b\":2}\r", b"\n{\"c\":3}\r\n\r\n{\"d\":4}\r"], 100);
        assert_eq!(end, Ok(5));
        let want: Vec<(u64, String)> =
            [(1, "{\"a\":1}"), (2, "{\"b\":2}"), (3, "{\"c\":3}"), (4, ""), (5, "{\"d\":4}")]
                .map(|(n, l)| (n, l.into()))
                .into();
        assert_eq!(lines, want);
    }

    #[test]
    fn a_missing_final_newline_is_a_truncation() {
        let (lines, end) = split(&[b"{\"a\":1}\n{\"b\":"], 100);
        assert_eq!(lines.len(), 1);
        assert_eq!(end, Err(Failure::Truncated { line: 2, bytes: 5 }));
    }

    /// Break-it 42 H2: a whole body whose last row lacks its newline lost
    /// the window.
    #[test]
    fn a_whole_body_ends_its_last_line_without_a_newline() {
        let whole = |chunks: &[&[u8]], max: usize| {
            let mut s = LineSplitter::new(max);
            let mut out = Vec::new();
            let mut keep = |n: u64, l: Line<'_>| {
                out.push((n, format!("{l:?}")));
                Ok::<(), ()>(())
            };
            for c in chunks {
                s.push(c, &mut keep).expect("push");
            }
            let end = s.finish_whole(&mut keep);
            (out, end)
        };
        let (lines, end) = whole(&[b"{\"a\":1}\n{\"b\"", b":2}"], 100);
        assert_eq!(end, Ok(2));
        assert_eq!(lines[1], (2, format!("{:?}", Line::Bytes(b"{\"b\":2}"))));
        let (lines, end) = whole(&[b"ab\n", b"0123456789", b"0123456789"], 15);
        assert_eq!((lines[1].clone(), end), ((2, "TooLong(20)".into()), Ok(2)));
        let (lines, end) = whole(&[b"ab\r\n"], 15);
        assert_eq!((lines.len(), end), (1, Ok(1)));
    }

    #[test]
    fn overlong_lines_are_handed_on_by_length_and_the_lines_around_them_kept() {
        // Across chunks, within one chunk, and a line exactly at the cap.
        let (lines, end) =
            split(&[b"{\"a\":1}\n0123456789", b"0123456789\n{\"b\":2}\n", b"x".repeat(20).as_slice(), b"\n"], 15);
        assert_eq!(end, Ok(4));
        assert_eq!(
            lines,
            vec![(1, "{\"a\":1}".into()), (2, "<20 bytes>".into()), (3, "{\"b\":2}".into()), (4, "<20 bytes>".into())]
        );
        let (lines, end) = split(&[b"012345678901234\nabc\n"], 15);
        assert_eq!((lines, end), (vec![(1, "012345678901234".into()), (2, "abc".into())], Ok(2)));
        // A body cut off inside an overlong line is still a truncation.
        let (_, end) = split(&[b"ok\n", b"0123456789", b"0123456789"], 15);
        assert_eq!(end, Err(Failure::Truncated { line: 2, bytes: 20 }));
    }
}
