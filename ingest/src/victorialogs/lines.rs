//! Splits a streamed response body into lines as chunks arrive, holding at
//! most one unfinished line (capped) in memory. A body that ends without a
//! final newline was cut off: VictoriaLogs ends every row with `\n`.

use super::error::Failure;

/// The callback receiving each completed line: `(1-based line number, bytes)`.
pub type OnLine<'a, E> = dyn FnMut(u64, &[u8]) -> Result<(), E> + 'a;

/// Incremental line splitter.
#[derive(Debug)]
pub struct LineSplitter {
    partial: Vec<u8>,
    max_line: usize,
    line: u64,
}

impl LineSplitter {
    /// A splitter refusing lines longer than `max_line` bytes.
    pub fn new(max_line: usize) -> LineSplitter {
        LineSplitter { partial: Vec::new(), max_line, line: 0 }
    }

    /// Lines completed so far.
    pub fn lines(&self) -> u64 {
        self.line
    }

    /// Feeds one chunk; calls `on_line(line_number, bytes)` for every line it
    /// completes (without the newline; blank lines included).
    ///
    /// # Errors
    /// [`Failure::LineTooLong`] (converted into `E`), or the first error `on_line` returns.
    pub fn push<E: From<Failure>>(&mut self, chunk: &[u8], on_line: &mut OnLine<'_, E>) -> Result<(), E> {
        let mut rest = chunk;
        while let Some(pos) = rest.iter().position(|b| *b == b'\n') {
            let (head, tail) = rest.split_at(pos);
            self.line += 1;
            if self.partial.is_empty() {
                self.check(head.len())?;
                on_line(self.line, head)?;
            } else {
                self.check(self.partial.len() + head.len())?;
                self.partial.extend_from_slice(head);
                let whole = std::mem::take(&mut self.partial);
                on_line(self.line, &whole)?;
            }
            rest = &tail[1..];
        }
        if !rest.is_empty() {
            if self.partial.len() + rest.len() > self.max_line {
                return Err(Failure::LineTooLong { line: self.line + 1, limit: self.max_line }.into());
            }
            self.partial.extend_from_slice(rest);
        }
        Ok(())
    }

    fn check(&self, len: usize) -> Result<(), Failure> {
        if len > self.max_line {
            return Err(Failure::LineTooLong { line: self.line, limit: self.max_line });
        }
        Ok(())
    }

    /// The body ended: an unfinished line means it was truncated.
    ///
    /// # Errors
    /// [`Failure::Truncated`].
    pub fn finish(self) -> Result<u64, Failure> {
        if self.partial.is_empty() {
            Ok(self.line)
        } else {
            Err(Failure::Truncated { line: self.line + 1, bytes: self.partial.len() })
        }
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
                out.push((n, String::from_utf8_lossy(l).to_string()));
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

    #[test]
    fn a_missing_final_newline_is_a_truncation() {
        let (lines, end) = split(&[b"{\"a\":1}\n{\"b\":"], 100);
        assert_eq!(lines.len(), 1);
        assert_eq!(end, Err(Failure::Truncated { line: 2, bytes: 5 }));
    }

    #[test]
    fn overlong_lines_are_refused() {
        let (_, end) = split(&[b"0123456789", b"0123456789\n"], 15);
        assert_eq!(end, Err(Failure::LineTooLong { line: 1, limit: 15 }));
    }
}
