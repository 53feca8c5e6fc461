//! The store's "now" and its first and last instants, from the times an
//! analysis may believe: an event dated 9999-12-31 (or an object whose
//! newest timestamp is year 0001) is kept as the input said and flagged at
//! ingest, but moved `skew`'s "now" to year 9999 and stretched `kdrift
//! report`'s range from year 0000 (kdrift issue 34). Both functions read
//! the columns' statistics first (no scan), and scan, skipping the times
//! outside [`kdrift_store::plausible_range`], only when the
//! statistics fall outside it.

use chrono::{DateTime, Utc};
use kdrift_store::plausible_range;
use kdrift_store::sql;
use kdrift_store::Reader;

use crate::AnalyzeError;

/// The newest observation time that is plausible as of the wall clock
/// (`latest_observation`, else `latest_observation_plausible`); `None` when
/// the store holds none.
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub fn latest_observation(store: &Reader) -> Result<Option<DateTime<Utc>>, AnalyzeError> {
    let (lower, upper) = plausible_range(Utc::now());
    let latest = store.query_one(&sql::LATEST_OBSERVATION, [], |r| r.get::<_, Option<DateTime<Utc>>>(0))?;
    if latest.is_none_or(|t| t >= lower && t <= upper) {
        return Ok(latest);
    }
    Ok(store.query_one(
        &sql::LATEST_OBSERVATION_PLAUSIBLE,
        [lower.timestamp_micros(), upper.timestamp_micros()],
        |r| r.get::<_, Option<DateTime<Utc>>>(0),
    )?)
}

/// The store's first and last plausible instants (`time_span`, else
/// `time_span_plausible`); `None` for an empty store.
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub fn time_span(store: &Reader) -> Result<Option<crate::report::Span>, AnalyzeError> {
    let (lower, upper) = plausible_range(Utc::now());
    let read = |r: &kdrift_store::Row<'_, '_>| {
        Ok((r.get::<_, Option<DateTime<Utc>>>(0)?, r.get::<_, Option<DateTime<Utc>>>(1)?))
    };
    let (first, last) = store.query_one(&sql::TIME_SPAN, [], read)?;
    let inside = |t: Option<DateTime<Utc>>| t.is_none_or(|t| t >= lower && t <= upper);
    if inside(first) && inside(last) {
        return Ok(first.zip(last));
    }
    let (first, last) =
        store.query_one(&sql::TIME_SPAN_PLAUSIBLE, [lower.timestamp_micros(), upper.timestamp_micros()], read)?;
    Ok(first.zip(last))
}
