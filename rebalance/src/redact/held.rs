//! The credentials this process holds, for the places that print or store
//! a server's words but are not handed a [`Redactor`]: kube's own log lines
//! (`kdrift -vv`), the top-level error on stderr, an error built deep inside
//! the cluster edge. Whoever resolves a credential [`hold`]s it; [`held`]
//! redacts all of them; [`held_in_records`] those long enough to look for
//! in the records kdrift stores. Only added to, never shown.

use std::sync::{PoisonError, RwLock};

use super::Redactor;

/// Every credential value held so far, their redactor, and the redactor
/// of those looked for in records.
type Held = (Vec<String>, Redactor, Redactor);
static HELD: RwLock<Option<Held>> = RwLock::new(None);

/// Adds `values` (credential values, as for [`Redactor::new`]) to what
/// [`held`] redacts. Values already held are not added twice.
pub fn hold<I, S>(values: I)
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let mut guard = HELD.write().unwrap_or_else(PoisonError::into_inner);
    let (mut all, _, _) = guard.take().unwrap_or_default();
    for v in values {
        let v = v.into();
        if !all.contains(&v) {
            all.push(v);
        }
    }
    let redactor = Redactor::new(all.iter().map(String::as_str));
    let in_records = Redactor::for_records(all.iter().map(String::as_str));
    *guard = Some((all, redactor, in_records));
}

/// The [`Redactor`] of every credential [`hold`] was given (none: it
/// changes nothing).
pub fn held() -> Redactor {
    HELD.read().unwrap_or_else(PoisonError::into_inner).as_ref().map(|(_, r, _)| r.clone()).unwrap_or_default()
}

/// The [`Redactor`] of the credentials [`held`] redacts that can be told
/// from data ([`Redactor::for_records`]: 8+ characters, whole tokens under
/// 16), for every string of every record stored (`kdrift_store`'s
/// `record_mask`).
/// Empty ([`Redactor::is_empty`]) while nothing is held.
pub fn held_in_records() -> Redactor {
    HELD.read().unwrap_or_else(PoisonError::into_inner).as_ref().map(|(_, _, r)| r.clone()).unwrap_or_default()
}

/// Why holding `value` masks ordinary text, or `None`: a credential
/// of 4 (`MIN_SECRET`) to 7 characters (under `MIN_RECORD_SECRET`: `admin`) is masked wherever it appears in errors and log
/// lines, inside other words too; one of letters (or digits) only, as a
/// word (or number) in every record stored too (break-it 34: a password
/// `Insufficient` masked every scheduler message). Shorter values are not
/// masked at all, so they mask nothing.
pub fn ordinary_text(value: &str) -> Option<&'static str> {
    let chars = value.chars().count();
    if chars < super::MIN_SECRET {
        return None;
    }
    if chars < super::MIN_RECORD_SECRET {
        return Some(
            "shorter than 8 characters: wherever it appears in an error or a log line, inside other words too, it \
             is masked (***)",
        );
    }
    if value.chars().all(char::is_alphabetic) {
        return Some(
            "letters only, like a word: wherever that word appears in an error, a log line or a stored record \
             (an Event's message), it is masked (***)",
        );
    }
    if value.chars().all(|c| c.is_ascii_digit()) {
        return Some(
            "digits only, like a number: wherever that number appears in an error, a log line or a stored record, \
             it is masked (***)",
        );
    }
    None
}

/// The places [`warn_if_ordinary`] has warned about, each once.
static WARNED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// Warns once per `what` (the credential and where it came from:
/// `the password from KDRIFT_VL_PASSWORD`, never its value) on stderr
/// (a `tracing` warning, shown at every verbosity) when `value`, held,
/// will mask ordinary text ([`ordinary_text`]). Returns the warning given,
/// `None` when there was none (or it was given before).
pub fn warn_if_ordinary(what: &str, value: &str) -> Option<String> {
    let why = ordinary_text(value)?;
    let mut warned = WARNED.lock().unwrap_or_else(PoisonError::into_inner);
    if warned.iter().any(|w| w == what) {
        return None;
    }
    warned.push(what.to_string());
    let warning = format!(
        "{what} is {why}: kdrift masks every credential it holds so that no server's echo of it is shown or \
         stored; a credential of 8+ characters that is no word or number masks nothing else"
    );
    tracing::warn!(target: "kdrift::credentials", "{warning}");
    Some(warning)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_held_is_redacted_everywhere_and_grows() {
        hold(["held-secret-one"]);
        hold([String::from("held-secret-two"), String::from("held-secret-one")]);
        let r = held();
        assert_eq!(r.redact("a held-secret-one b aGVsZC1zZWNyZXQtdHdv c"), "a *** b *** c");
        // In records: 8+ characters only, whole tokens under 16 (`Redactor::for_records`).
        hold(["qzxwvk", "q7zk9x", "q7zk9x3m"]);
        assert_eq!(held().redact("qzxwvk q7zk9x"), "*** ***");
        assert_eq!(
            held_in_records().redact("qzxwvk q7zk9x q7zk9x3m q7zk9x3mm held-secret-one"),
            "qzxwvk q7zk9x *** q7zk9x3mm ***"
        );
    }

    #[test]
    fn a_short_word_or_number_credential_is_warned_about_once_without_its_value() {
        // Break-it 34: a password `Insufficient` masked every
        // FailedScheduling message stored, silently.
        let warning = warn_if_ordinary("the password from KDRIFT_T_PASSWORD", "Insufficient").expect("warned");
        assert_eq!(
            warning,
            "the password from KDRIFT_T_PASSWORD is letters only, like a word: wherever that word appears in an \
             error, a log line or a stored record (an Event's message), it is masked (***): kdrift masks every \
             credential it holds so that no server's echo of it is shown or stored; a credential of 8+ characters \
             that is no word or number masks nothing else"
        );
        assert!(!warning.contains("Insufficient"));
        assert_eq!(warn_if_ordinary("the password from KDRIFT_T_PASSWORD", "Insufficient"), None, "once");
        let short = warn_if_ordinary("the token in /t/short", "ab1!x").expect("short");
        assert!(short.starts_with("the token in /t/short is shorter than 8 characters: "), "{short}");
        assert!(warn_if_ordinary("the header X in E", "20261127").expect("digits").contains("digits only"));
        for fine in ["abc", "Pw9zQ7secretX", "kd-token-1234", ""] {
            assert_eq!(ordinary_text(fine), None, "{fine}");
        }
    }
}
