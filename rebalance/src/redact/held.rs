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
    let in_records = Redactor::for_records(all.iter().map(String::as_str)).noting_records();
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
/// `Insufficient` masked every scheduler message); one with a blank (a
/// phrase: `Insufficient cpu`) or made of words of letters joined by `-`,
/// `_` or `.` of 16+ characters (a name: `default-scheduler`), wherever that text or a piece
/// of it appears, records included (break-it 40 F8: every Event's
/// `source.component` became `***`). Shorter values are not masked at
/// all, so they mask nothing.
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
    if value.chars().any(char::is_whitespace) {
        return Some(
            "text with blanks, like a phrase: wherever that text, one of its words of 8+ characters or any 12+ \
             characters of it appear in an error, a log line or a stored record (an Event's message), they are \
             masked (***)",
        );
    }
    // From 16 characters (`WHOLE_TOKEN_BELOW`), where its pieces are masked
    // inside other text too; a shorter one is masked only where it stands
    // whole (`kube-proxy`), which `found_in_record` says when it happens.
    let words: Vec<&str> = value.split(['-', '_', '.']).collect();
    if chars >= super::WHOLE_TOKEN_BELOW
        && words.len() > 1
        && words.iter().all(|w| !w.is_empty() && w.chars().all(char::is_alphabetic))
    {
        return Some(
            "words joined by `-`, `_` or `.`, like a name: wherever that text or any 12+ characters of it appear in \
             an error, a log line or a stored record (a component's or an object's name, an Event's message), they \
             are masked (***)",
        );
    }
    None
}

/// The places [`warn_if_ordinary`] has warned about, each once.
static WARNED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// A credential named by where it came from ([`warn_if_ordinary`]'s
/// `what`), for [`found_in_record`].
struct Named {
    what: String,
    value: String,
    /// Its redactor for records, built the first time a record is masked.
    records: Option<Redactor>,
    /// Whether [`found_in_record`] has warned about it.
    warned: bool,
}

/// Every credential named so far, and whether a record held a credential
/// none of them is (one held unnamed: an exec plugin's token, a URL's
/// password) and was warned about.
static NAMED: std::sync::Mutex<(Vec<Named>, bool)> = std::sync::Mutex::new((Vec::new(), false));

/// Names `value` (a credential [`hold`] is given) by `what` (`the
/// password from KDRIFT_VL_PASSWORD`), for the warning of
/// [`found_in_record`]. A name given twice keeps its first value.
fn name(what: &str, value: &str) {
    let mut named = NAMED.lock().unwrap_or_else(PoisonError::into_inner);
    if value.chars().count() >= super::MIN_RECORD_SECRET && !named.0.iter().any(|n| n.what == what) {
        named.0.push(Named { what: what.to_string(), value: value.to_string(), records: None, warned: false });
    }
}

/// Says once per credential (on stderr, as [`warn_if_ordinary`] does,
/// naming where it came from, never the value) that the held credentials'
/// redactor for records ([`held_in_records`]) masked one in `text`, a
/// string of a record being stored: a server's echo, or ordinary data of
/// the cluster that the credential happens to be (break-it 40 F8: a
/// password `default-scheduler` turned every Event's `source.component`
/// into `***`, silently). Returns the warnings given.
pub(crate) fn found_in_record(text: &str) -> Vec<String> {
    let mut guard = NAMED.lock().unwrap_or_else(PoisonError::into_inner);
    let (named, unnamed_warned) = &mut *guard;
    if *unnamed_warned && named.iter().all(|n| n.warned) {
        return Vec::new();
    }
    let mut warnings = Vec::new();
    let mut any = false;
    for n in named.iter_mut() {
        let value = n.value.as_str();
        let records = n.records.get_or_insert_with(|| Redactor::for_records([value]));
        if records.redact_found_quietly(text) {
            any = true;
            if !n.warned {
                n.warned = true;
                warnings.push(format!("{} appears in a record being stored", n.what));
            }
        }
    }
    if !any && !*unnamed_warned {
        *unnamed_warned = true;
        warnings.push(
            "a credential kdrift holds (an exec plugin's token, a URL's password or key) appears in a record being \
             stored"
                .to_string(),
        );
    }
    drop(guard);
    warnings
        .into_iter()
        .map(|w| {
            let warning = format!(
                "{w} (an object's field or name, a measured name) and is masked there (***), as every credential \
                 kdrift holds is, so that no server's echo of it is stored; if that text is ordinary data of the \
                 cluster (a word, a name), every record holding it is stored masked: use a credential that is not \
                 such text"
            );
            tracing::warn!(target: "kdrift::credentials", "{warning}");
            warning
        })
        .collect()
}

/// Warns once per `what` (the credential and where it came from:
/// `the password from KDRIFT_VL_PASSWORD`, never its value) on stderr
/// (a `tracing` warning, shown at every verbosity) when `value`, held,
/// will mask ordinary text ([`ordinary_text`]). Returns the warning given,
/// `None` when there was none (or it was given before).
///
/// Also names the credential by `what` for the warning given when a
/// record being stored holds it (`found_in_record`), ordinary or not.
pub fn warn_if_ordinary(what: &str, value: &str) -> Option<String> {
    name(what, value);
    let why = ordinary_text(value)?;
    let mut warned = WARNED.lock().unwrap_or_else(PoisonError::into_inner);
    if warned.iter().any(|w| w == what) {
        return None;
    }
    warned.push(what.to_string());
    let warning = format!(
        "{what} is {why}: kdrift masks every credential it holds so that no server's echo of it is shown or \
         stored; a credential of 8+ characters that is no word, number, phrase or name masks nothing else"
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
             that is no word, number, phrase or name masks nothing else"
        );
        assert!(!warning.contains("Insufficient"));
        assert_eq!(warn_if_ordinary("the password from KDRIFT_T_PASSWORD", "Insufficient"), None, "once");
        let short = warn_if_ordinary("the token in /t/short", "ab1!x").expect("short");
        assert!(short.starts_with("the token in /t/short is shorter than 8 characters: "), "{short}");
        assert!(warn_if_ordinary("the header X in E", "20261127").expect("digits").contains("digits only"));
        for fine in ["abc", "Pw9zQ7secretX", "kd-token-1234", "", "-leading-dash", "a--b-cdefgh"] {
            assert_eq!(ordinary_text(fine), None, "{fine}");
        }
    }

    /// Break-it 40 F8: a password `default-scheduler` masked every Event's
    /// `source.component`, `Insufficient cpu` every scheduler message,
    /// with no warning: a phrase and a name of words are warned about too.
    #[test]
    fn a_phrase_or_a_name_of_words_is_warned_about_as_ordinary_text() {
        let phrase = warn_if_ordinary("the password from KDRIFT_T2_PASSWORD", "Insufficient cpu").expect("phrase");
        assert!(
            phrase.starts_with(
                "the password from KDRIFT_T2_PASSWORD is text with blanks, like a phrase: wherever that text, one of \
                 its words of 8+ characters or any 12+ characters of it appear in an error, a log line or a stored \
                 record (an Event's message), they are masked (***): "
            ),
            "{phrase}"
        );
        for name in ["default-scheduler", "kube_system.admin", "node-lifecycle-controller"] {
            let why = ordinary_text(name).expect(name);
            assert!(why.starts_with("words joined by `-`, `_` or `.`, like a name: "), "{name}: {why}");
        }
        assert!(ordinary_text("nodes are available").is_some_and(|w| w.contains("phrase")));
        // A shorter name is masked only where it stands whole: said when a record holds it.
        assert_eq!(ordinary_text("fake-token"), None);
        assert!(!phrase.contains("Insufficient"));
    }

    /// Break-it 40 F8: a held credential found in a record being stored is
    /// said once, naming its source; one never named is said once too.
    #[test]
    fn a_credential_found_in_a_record_is_warned_about_once_naming_its_source() {
        const TOKEN: &str = "recTok-Q7h3k9q2w8e5x1zz";
        hold([TOKEN, "unnamedTok-Zq8Lp4Wm2Xk7aa"]);
        assert_eq!(warn_if_ordinary("the token of kubeconfig user found-test", TOKEN), None, "not ordinary");
        let record = format!("component {TOKEN} said hello");
        let warnings = found_in_record(&record);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].starts_with(
                "the token of kubeconfig user found-test appears in a record being stored (an object's field or \
                 name, a measured name) and is masked there (***)"
            ),
            "{warnings:?}"
        );
        assert!(!warnings[0].contains(TOKEN));
        assert!(found_in_record(&record).is_empty(), "once");
        // Masking a record through the held redactor says so too.
        assert_eq!(held_in_records().redact_found("x unnamedTok-Zq8Lp4Wm2Xk7aa y").as_deref(), Some("x *** y"));
        assert!(found_in_record("x unnamedTok-Zq8Lp4Wm2Xk7aa y").is_empty(), "the unnamed one was said once");
    }
}
