//! HTML escaping of every text and attribute value the report writes (pod
//! names, event messages, store paths): `&`, `<`, `>`, `"` and `'`.

use std::fmt;

/// Displays a string escaped for HTML text and quoted attribute values.
#[derive(Debug, Clone, Copy)]
pub struct Esc<'a>(pub &'a str);

impl fmt::Display for Esc<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
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
        f.write_str(rest)
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
    fn ids_keep_only_safe_characters() {
        assert_eq!(id("media/backup-29930640-5l8lp"), "media-backup-29930640-5l8lp");
        assert_eq!(id("a\"><b"), "a---b");
    }
}
