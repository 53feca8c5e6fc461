//! Why `timeline drains` found no operation, in words a new user can act
//! on: the store holds nothing with a time; its operations all lie outside
//! `--since`/`--until` (when they run); or its time span holds no cordon,
//! NotReady or reboot of any node (naming the span, the node signals it
//! does hold, and the eviction evidence that is no drain without them) and
//! what to ingest to see drains.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use kdrift_store::sql;
use kdrift_store::Reader;

use crate::history::NodeSignal;
use crate::words::count;
use crate::AnalyzeError;

/// What to ingest to see drains.
const WHAT_TO_INGEST: &str = "ingest what shows a drain: Node versions over time (`kdrift record`, or `kubectl get \
                              nodes -o json` taken while it drains) and the nodes' events (`kubectl get events -A -o \
                              json` within an hour of the drain, before they expire, or `kdrift ingest victorialogs`)";

fn utc(t: DateTime<Utc>) -> String {
    kdrift_store::instant_text(t)
}

/// Why no operation overlaps `[since, until]`. `operations` are the
/// store's operations as (start, last signal), whatever the window;
/// `signals` every node signal of the store.
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub(super) fn why_none(
    store: &Reader,
    since: Option<DateTime<Utc>>,
    until: Option<DateTime<Utc>>,
    operations: &[(DateTime<Utc>, DateTime<Utc>)],
    signals: &[NodeSignal],
) -> Result<String, AnalyzeError> {
    let Some((first, last)) = crate::report::time_span(store)? else {
        return Ok(format!("the store holds nothing with a time; {WHAT_TO_INGEST}"));
    };
    if let (Some(start), Some(end)) = (operations.iter().map(|o| o.0).min(), operations.iter().map(|o| o.1).max()) {
        let from = since.map_or_else(|| "the beginning".to_string(), utc);
        let to = until.map_or_else(|| "the end".to_string(), utc);
        return Ok(format!(
            "none of the store's {} overlaps the range asked for ({from} → {to}): they run from {} to {}; widen \
             --since/--until",
            count(operations.len(), "operation", "operations"),
            utc(start),
            utc(end)
        ));
    }
    let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
    for s in signals {
        *reasons.entry(s.reason.as_str()).or_default() += 1;
    }
    let held = if reasons.is_empty() {
        "no node signal at all".to_string()
    } else {
        let list: Vec<String> = reasons.iter().map(|(r, n)| format!("{n} {r}")).collect();
        format!("node signals: {}", list.join(", "))
    };
    let evictions =
        store.query_map(&sql::EVICTION_COUNTS, [first.timestamp_micros(), last.timestamp_micros()], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))
        })?;
    let stopped = if evictions.is_empty() {
        ", nor any eviction evidence".to_string()
    } else {
        let list: Vec<String> =
            evictions.iter().map(|(e, n)| format!("{e}: {}", count(*n as usize, "pod", "pods"))).collect();
        format!("; its eviction evidence ({}) is no drain without one", list.join(", "))
    };
    Ok(format!(
        "the store's time span, {} → {}, holds no cordon, NotReady or reboot of any node ({held}){stopped}; \
         {WHAT_TO_INGEST}",
        utc(first),
        utc(last)
    ))
}
