//! Text from a store, a file or a server written so that a terminal shows
//! it as it is: control characters made visible. A name or message holding
//! a newline forged table rows and lines; one holding ESC reached the
//! terminal as an escape sequence (break-it 38 F8). No Kubernetes name
//! holds one (DNS-1123 and path segment names), so the store refuses such
//! names at ingest; what an older store, a log line or a user's argument
//! holds is shown through [`visible`].

use std::borrow::Cow;

/// Whether `c` is taken for a control character: a C0 or C1 control or
/// DEL, or the byte-order mark U+FEFF, which is invisible and holds no
/// place in a name either (break-it 43 L1: a node `\u{feff}node-49` was
/// stored, matching no node).
pub fn is_control(c: char) -> bool {
    c.is_control() || c == '\u{feff}'
}

/// `text` with its control characters ([`is_control`]) written visibly
/// (`\n`, `\r`, `\t`, `\e`, `\u{feff}`, else `\xNN`), borrowed when it
/// holds none.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{1b}' => out.push_str("\\e"),
            '\u{feff}' => out.push_str("\\u{feff}"),
            // Every other control character (C0, DEL, C1) is below 0x100.
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", u32::from(c))),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// The first control character of `text`, written as [`visible`] writes it.
pub fn first_control(text: &str) -> Option<String> {
    text.chars().find(|c| is_control(*c)).map(|c| visible(&c.to_string()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_written_visibly_and_the_rest_kept() {
        assert!(matches!(visible("web-1.é"), Cow::Borrowed("web-1.é")));
        assert_eq!(visible("a\nb\r\tc\u{1b}[31md\u{7}e\u{9b}"), "a\\nb\\r\\tc\\e[31md\\x07e\\x9b");
        assert_eq!(first_control("web\u{1b}[2J"), Some("\\e".to_string()));
        assert_eq!(first_control("web-1"), None);
        assert_eq!(first_control("\u{feff}node-49"), Some("\\u{feff}".to_string()));
        assert_eq!(visible("a\u{feff}b"), "a\\u{feff}b");
    }
}
