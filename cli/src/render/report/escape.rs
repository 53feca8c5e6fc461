//! HTML escaping of every text and attribute value the report writes (pod
//! names, event messages, store paths): `&`, `<`, `>`, `"` and `'`; a text
//! longer than [`MAX_TEXT_BYTES`] is cut there.

use std::fmt;

/// The longest text the report writes from one value, bytes: a longer one
/// (a 200 MB message stored from a file made an 838 MB report, kdrift
/// issue 34) is cut at a character boundary and ends with a note of how
/// much was left out (`-o json` of the analysis has it whole).
pub const MAX_TEXT_BYTES: usize = 4096;

/// Displays a string escaped for HTML text and quoted attribute values, cut
/// at [`MAX_TEXT_BYTES`].
#[derive(Debug, Clone, Copy)]
pub struct Esc<'a>(pub &'a str);

impl fmt::Display for Esc<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut end = self.0.len().min(MAX_TEXT_BYTES);
        while !self.0.is_char_boundary(end) {
            end -= 1;
        }
        let mut rest = &self.0[..end];
        let cut = self.0.len() - end;
        while let Some(i) = rest.find(['&', '<', '>', '"', '\'']) {
            f.write_str(&rest[..i])?;
            f.write_str(match rest.as_bytes()[i] {
                b'&' => "&amp;",
                b'<' => "&lt;",
                b'>' => "&gt;",
                b'"' => "&quot;",
                _ => "&#39;",
            })?;
            rest = &rest[i + 1..];
        }
        f.write_str(rest)?;
        if cut > 0 {
            write!(f, "… [{cut} more bytes not shown]")?;
        }
        Ok(())
    }
}

/// A string usable inside an `id` attribute and a `#fragment`: ASCII letters,
/// digits, `-` and `_`; every other character becomes `-`.
pub fn id(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '-' }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn esc(s: &str) -> String {
        Esc(s).to_string()
    }

    #[test]
    fn markup_characters_are_escaped() {
        assert_eq!(esc(r#"<script>alert("x")</script>"#), "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
        assert_eq!(esc("a & b's"), "a &amp; b&#39;s");
        assert_eq!(esc("&amp;"), "&amp;amp;", "already-escaped text is escaped again, not trusted");
        assert_eq!(esc("node-1 → node-2 (58m)"), "node-1 → node-2 (58m)", "other text untouched");
        assert_eq!(esc(""), "");
    }

    #[test]
    fn a_text_past_the_cap_is_cut_at_a_character_boundary_and_says_how_much_is_left_out() {
        let long = format!("<{}", "é".repeat(MAX_TEXT_BYTES));
        let shown = esc(&long);
        assert!(shown.starts_with("&lt;éé"), "{}", &shown[..20]);
        // 1 byte of `<` then 2047 é (4095 bytes): the next é would pass the cap.
        assert_eq!(shown.matches('é').count(), (MAX_TEXT_BYTES - 1) / 2);
        assert!(
            shown.ends_with(&format!("… [{} more bytes not shown]", long.len() - (MAX_TEXT_BYTES - 1))),
            "{}",
            &shown[shown.len() - 40..]
        );
        assert_eq!(esc(&"a".repeat(MAX_TEXT_BYTES)), "a".repeat(MAX_TEXT_BYTES), "exactly the cap: whole");
    }

    #[test]
    fn ids_keep_only_safe_characters() {
        assert_eq!(id("media/backup-29930640-5l8lp"), "media-backup-29930640-5l8lp");
        assert_eq!(id("a\"><b"), "a---b");
    }
}
