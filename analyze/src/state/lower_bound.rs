//! When requested amounts are a lower bound, and the notes that say so
//! (`kdrift skew`, `rebalance plan`, `why-pending`):
//!
//! - a namespace whose pods events name while the store holds no Pod object
//!   of it (query `unstored_namespaces`: it was not dumped, or an events-only
//!   VictoriaLogs pull): its pods count only when a Scheduled event places
//!   them ([`super::events`]), its other pods not at all, on any node;
//! - a pod known only from events whose owner the store does not know
//!   either ([`super::ClusterAt::requests_unknown`]): it counts on its node
//!   with no requests.
//!
//! Events name what happened in the hour before a dump (the API server's
//! event TTL), so the namespaces are those named in the hour up to the
//! instant.

use chrono::{DateTime, Duration, Utc};
use kdrift_store::sql;
use kdrift_store::Reader;
use serde::Serialize;

use crate::words::{count, pick};
use crate::AnalyzeError;

/// How far back events name the pods of an instant: the API server's event TTL (1 hour).
pub const EVENT_TTL: Duration = Duration::hours(1);

/// A namespace whose pods events name while the store holds no Pod object of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnstoredNamespace {
    /// The namespace.
    pub namespace: String,
    /// Distinct pods the events name in it (in the hour up to the instant).
    pub pods: usize,
}

/// The instant whose hour of events [`unstored_namespaces`] reads for a
/// state at `at`: `at` itself, or the store's last instant when `at` is
/// after the history (a state shown "as recorded then" is the last one,
/// and so are the events that name its pods).
///
/// # Errors
/// [`AnalyzeError::Store`] when the query fails.
pub fn events_instant(store: &Reader, at: DateTime<Utc>) -> Result<DateTime<Utc>, AnalyzeError> {
    Ok(match crate::report::time_span(store)? {
        Some((_, last)) if last < at => last,
        _ => at,
    })
}

/// The namespaces whose pods events name in the hour up to `at` while the
/// store holds no Pod object of them, by name.
///
/// # Errors
/// [`AnalyzeError::Store`] when the query fails.
pub fn unstored_namespaces(store: &Reader, at: DateTime<Utc>) -> Result<Vec<UnstoredNamespace>, AnalyzeError> {
    let since = at - EVENT_TTL;
    Ok(store.query_map(&sql::UNSTORED_NAMESPACES, [since.timestamp_micros(), at.timestamp_micros()], |r| {
        Ok(UnstoredNamespace { namespace: r.get(0)?, pods: r.get::<_, i64>(1)?.max(0) as usize })
    })?)
}

/// The note for [`unstored_namespaces`] (`None` when there is none), e.g.
/// `requested amounts are lower bounds (≥) on every node: events in the
/// hour up to 2019-03-08T08:59:58Z name 104 pods of namespace default, of
/// which the store holds no Pod object (not dumped): …`.
pub fn unstored_note(at: DateTime<Utc>, unstored: &[UnstoredNamespace]) -> Option<String> {
    if unstored.is_empty() {
        return None;
    }
    let pods: usize = unstored.iter().map(|u| u.pods).sum();
    let names: Vec<&str> = unstored.iter().map(|u| u.namespace.as_str()).collect();
    Some(format!(
        "requested amounts are lower bounds (≥) on every node: events in the hour up to {} name {} of {} {}, \
         of which the store holds no Pod object (not dumped): pods there count only when a Scheduled event places \
         them, other pods there not at all (ingest `kubectl get pods -A -o json`)",
        kdrift_store::instant_text(at),
        count(pods, "pod", "pods"),
        pick(names.len(), "namespace", "namespaces"),
        names.join(", ")
    ))
}

/// The note on pods known only from events (`None` when there is none):
/// how they were placed and estimated, and how many count with no
/// requests, making the amounts of `lower_nodes` (when given) lower bounds.
pub fn event_only_note(pods: usize, requests_unknown: usize, lower_nodes: &[String]) -> Option<String> {
    if pods == 0 {
        return None;
    }
    let mut note = format!(
        "{} known only from events (Scheduled, no object): placed from {} Scheduled event",
        count(pods, "pod is", "pods are"),
        pick(pods, "its", "their"),
    );
    if requests_unknown < pods {
        note.push_str(", requests estimated from the nearest version of the same owner");
    }
    if requests_unknown > 0 {
        // All of them: no estimate was made ("estimated …; it has no …" contradicted itself).
        let who = if requests_unknown == pods {
            pick(
                pods,
                "; the store has no version of its owner either, so it",
                "; the store has no version of their owners either, so they",
            )
            .to_string()
        } else {
            format!(
                "; {requests_unknown} of them {} no stored version of {} owner and",
                pick(requests_unknown, "has", "have"),
                pick(requests_unknown, "its", "their")
            )
        };
        note.push_str(
            &format!("{who} {} with no requests (a lower bound)", pick(requests_unknown, "counts", "count"),),
        );
        if !lower_nodes.is_empty() {
            note.push_str(&format!(": the requested amounts of {} are lower bounds (≥)", lower_nodes.join(", ")));
        }
    }
    Some(note)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).map(|t| t.with_timezone(&Utc)).expect("time")
    }

    #[test]
    fn the_unstored_note_names_the_namespaces_and_agrees_in_number() {
        let one = [UnstoredNamespace { namespace: "default".into(), pods: 1 }];
        let note = unstored_note(t("2019-03-08T08:59:58Z"), &one).expect("note");
        assert!(
            note.starts_with(
                "requested amounts are lower bounds (≥) on every node: events in the hour up to \
                 2019-03-08T08:59:58Z name 1 pod of namespace default, of which the store holds no Pod object"
            ),
            "{note}"
        );
        let two = [
            UnstoredNamespace { namespace: "a".into(), pods: 3 },
            UnstoredNamespace { namespace: "b".into(), pods: 2 },
        ];
        let note = unstored_note(t("2019-03-08T08:59:58Z"), &two).expect("note");
        assert!(note.contains(" name 5 pods of namespaces a, b, "), "{note}");
        assert_eq!(unstored_note(t("2019-03-08T08:59:58Z"), &[]), None);
    }

    #[test]
    fn the_event_only_note_agrees_in_number() {
        // None estimated: the note does not say "estimated" (it read
        // "requests estimated …; it has no stored version of its owner").
        assert_eq!(
            event_only_note(1, 1, &["minikube".to_string()]).as_deref(),
            Some(
                "1 pod is known only from events (Scheduled, no object): placed from its Scheduled event; the store \
                 has no version of its owner either, so it counts with no requests (a lower bound): the requested \
                 amounts of minikube are lower bounds (≥)"
            )
        );
        assert_eq!(
            event_only_note(2, 2, &[]).as_deref(),
            Some(
                "2 pods are known only from events (Scheduled, no object): placed from their Scheduled event; the \
                 store has no version of their owners either, so they count with no requests (a lower bound)"
            )
        );
        assert_eq!(
            event_only_note(3, 1, &[]).as_deref(),
            Some(
                "3 pods are known only from events (Scheduled, no object): placed from their Scheduled event, \
                 requests estimated from the nearest version of the same owner; 1 of them has no stored version of \
                 its owner and counts with no requests (a lower bound)"
            )
        );
        assert!(event_only_note(2, 0, &[]).is_some_and(|n| n.ends_with("the nearest version of the same owner")));
        assert_eq!(event_only_note(0, 0, &[]), None);
    }
}
