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
}
