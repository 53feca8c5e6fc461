//! `-o json` written as it is serialised: pretty JSON straight from the
//! value to a buffered writer, every time cut to the whole second on the way
//! ([`WholeSeconds`]), byte for byte what serialising through a
//! `serde_json::Value` and [`super::whole_seconds`] printed (the workspace's
//! serde_json keeps field order, `preserve_order`). A 150,000-pod plan
//! document went through a second whole copy of itself as a `Value`, then
//! one `write` per line to the line-buffered stdout (kdrift issue 39).

use std::io::{self, Write};

use serde_json::ser::{Formatter, PrettyFormatter};

/// Bytes buffered before a write to the underlying writer.
const BUFFER_BYTES: usize = 1 << 16;

/// Writes `value` as pretty JSON to `out` through a buffer, times cut to the
/// whole second ([`super::time`]); flushes the buffer before returning.
///
/// # Errors
/// The writer's error (a closed pipe as `io::Error`), or serde's for a value
/// that cannot be serialised.
pub fn write_pretty<W: Write, T: serde::Serialize>(out: &mut W, value: &T) -> io::Result<()> {
    let mut buffered = io::BufWriter::with_capacity(BUFFER_BYTES, out);
    let mut ser = serde_json::Serializer::with_formatter(&mut buffered, WholeSeconds::default());
    value.serialize(&mut ser).map_err(io::Error::from)?;
    buffered.flush()
}

/// The longest string [`super::chrono_time`] takes: `…T05:30:00.123456789Z`.
const TIME_TEXT_MAX: usize = 30;

/// serde_json's pretty formatter, with every string value that is a whole
/// time as chrono writes one (`2026-11-28T05:30:00.315Z`,
/// [`super::chrono_time`]) written as [`super::time`] prints it. A string's
/// fragments are held back while they are unescaped and short enough to be
/// a time (chrono writes one piece by piece, `2026`, `-`, `11`, …), so a
/// time inside a longer or escaped string is written as it is (as
/// [`super::whole_seconds`] leaves it); object keys are never cut.
#[derive(Default)]
pub struct WholeSeconds {
    pretty: PrettyFormatter<'static>,
    /// Inside an object key (keys are written as they are).
    in_key: bool,
    /// The current string's fragments so far, held back: it may be a time.
    held: String,
    /// The current string is no time (too long, or escaped): written as it comes.
    passing: bool,
}

impl WholeSeconds {
    /// Writes the held fragments as they are (the string is no time).
    fn release<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.passing = true;
        if self.held.is_empty() {
            return Ok(());
        }
        let held = std::mem::take(&mut self.held);
        self.pretty.write_string_fragment(writer, &held)
    }
}

impl Formatter for WholeSeconds {
    fn begin_string<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.held.clear();
        self.passing = self.in_key;
        self.pretty.begin_string(writer)
    }

    fn end_string<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        if !self.held.is_empty() {
            let held = std::mem::take(&mut self.held);
            match super::chrono_time(&held) {
                Some(t) => self.pretty.write_string_fragment(writer, &super::time(t))?,
                None => self.pretty.write_string_fragment(writer, &held)?,
            }
        }
        self.pretty.end_string(writer)
    }

    fn write_string_fragment<W: ?Sized + Write>(&mut self, writer: &mut W, fragment: &str) -> io::Result<()> {
        if !self.passing {
            if self.held.len() + fragment.len() <= TIME_TEXT_MAX {
                self.held.push_str(fragment);
                return Ok(());
            }
            self.release(writer)?;
        }
        self.pretty.write_string_fragment(writer, fragment)
    }

    fn write_char_escape<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        char_escape: serde_json::ser::CharEscape,
    ) -> io::Result<()> {
        self.release(writer)?;
        self.pretty.write_char_escape(writer, char_escape)
    }

    fn begin_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.pretty.begin_array(writer)
    }

    fn end_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.pretty.end_array(writer)
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        self.pretty.begin_array_value(writer, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.pretty.end_array_value(writer)
    }

    fn begin_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.pretty.begin_object(writer)
    }

    fn end_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.pretty.end_object(writer)
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        self.in_key = true;
        self.pretty.begin_object_key(writer, first)
    }

    fn end_object_key<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.in_key = false;
        self.pretty.end_object_key(writer)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.pretty.begin_object_value(writer)
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.pretty.end_object_value(writer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What `render::json` printed before: through a `Value`, times cut.
    fn through_value(v: &serde_json::Value) -> String {
        let mut doc = v.clone();
        super::super::whole_seconds(&mut doc);
        serde_json::to_string_pretty(&doc).expect("json")
    }

    #[test]
    fn streamed_json_is_byte_for_byte_the_value_route_times_cut_keys_and_escaped_strings_kept() {
        let v = json!({
            "at": "2026-11-28T05:30:00.315Z",
            "2026-11-28T05:30:00.315Z": "a key is kept",
            "whole": "2026-11-28T05:30:00Z",
            "quoted": "\"2026-11-28T05:30:00.315Z",
            "inside": "at 2026-11-28T05:30:00.315Z",
            "escaped_after": "2026-11-28T05:30:00.315Z\n",
            "not_a_time": "abcdefghijklmnopqrstuvwxyzZ",
            "list": [{"t": "2026-11-28T05:30:00.999999Z", "n": 1.5, "e": []}, {}],
        });
        let mut out = Vec::new();
        write_pretty(&mut out, &v).expect("write");
        let text = String::from_utf8(out).expect("utf-8");
        assert_eq!(text, through_value(&v));
        assert!(text.contains("\"at\": \"2026-11-28T05:30:00Z\""), "{text}");
        assert!(text.contains("\"t\": \"2026-11-28T05:30:00Z\""), "{text}");
        assert!(text.contains("\"2026-11-28T05:30:00.315Z\": \"a key is kept\""), "{text}");
        assert!(text.contains("\"escaped_after\": \"2026-11-28T05:30:00.315Z\\n\""), "{text}");
    }

    #[test]
    fn a_chrono_time_written_piece_by_piece_is_cut_too() {
        // chrono serialises through collect_str: `2026`, `-`, `11`, … (the
        // first version held only a time written as one fragment, and
        // `why-pending --all -o json` kept its microseconds).
        #[derive(serde::Serialize)]
        struct Failure {
            first_failure: chrono::DateTime<chrono::Utc>,
            deleted_at: Option<chrono::DateTime<chrono::Utc>>,
        }
        let at = |s: &str| chrono::DateTime::parse_from_rfc3339(s).expect("time").to_utc();
        let failure = Failure {
            first_failure: at("2026-11-28T04:00:00.098554Z"),
            deleted_at: Some(at("2026-11-28T05:30:00.315Z")),
        };
        let mut out = Vec::new();
        write_pretty(&mut out, &failure).expect("write");
        assert_eq!(
            String::from_utf8(out).expect("utf-8"),
            "{\n  \"first_failure\": \"2026-11-28T04:00:00Z\",\n  \"deleted_at\": \"2026-11-28T05:30:00Z\"\n}"
        );
    }
}
