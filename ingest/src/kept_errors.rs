//! A source's input errors, bounded (break-it 34 M1): 300,000 bad NDJSON
//! lines around 10 good ones kept ~1.1 KB per error (413 MB) and printed
//! 300,002 lines. The first [`KEPT_ERRORS_PER_FILE`] of a source are kept,
//! printed and stored in full; the others are only counted
//! ([`FileSummary::errors_not_kept`]), and one last error says how many
//! ("… and 299,900 more errors like these in FILE"). The counts of the
//! run and of `ingest_files` are the true totals. A source is a file
//! (`ingest file`), a VictoriaLogs window, a Prometheus window, or a
//! resource of `ingest api` / `record` ([`keep`], [`more_errors`]).

use crate::files::FileSummary;
use crate::parse::InputError;
use crate::store::Origin;
use kdrift_rebalance::thousands;

/// Most input errors of one file (or window, or API resource) kept in
/// full (printed, stored in `ingest_errors`): 100.
pub const KEPT_ERRORS_PER_FILE: usize = 100;

/// Pushes `error` on `kept` while it holds fewer than
/// [`KEPT_ERRORS_PER_FILE`], else counts it in `not_kept`; true when kept.
pub(crate) fn keep<T>(kept: &mut Vec<T>, not_kept: &mut u64, error: T) -> bool {
    if kept.len() < KEPT_ERRORS_PER_FILE {
        kept.push(error);
        true
    } else {
        *not_kept += 1;
        false
    }
}

impl FileSummary {
    /// Keeps `error` while fewer than [`KEPT_ERRORS_PER_FILE`] are, else counts it.
    pub(crate) fn add_error(&mut self, error: InputError) {
        keep(&mut self.errors, &mut self.errors_not_kept, error);
    }

    /// [`FileSummary::add_error`] for each of `errors`.
    pub(crate) fn add_errors(&mut self, errors: Vec<InputError>) {
        let room = KEPT_ERRORS_PER_FILE.saturating_sub(self.errors.len());
        self.errors_not_kept += errors.len().saturating_sub(room) as u64;
        self.errors.extend(errors.into_iter().take(room));
    }

    /// Once the file is read: errors past the cap (of a file read whole)
    /// are counted, and when any were, one error saying how many ends the
    /// kept ones.
    pub(crate) fn close_errors(&mut self) {
        if self.errors.len() > KEPT_ERRORS_PER_FILE {
            self.errors_not_kept += (self.errors.len() - KEPT_ERRORS_PER_FILE) as u64;
            self.errors.truncate(KEPT_ERRORS_PER_FILE);
        }
        if self.errors_not_kept > 0 && !self.more_said {
            self.more_said = true;
            self.errors.push(InputError {
                origin: Origin { location: self.location.clone(), line: None, item: None },
                column: None,
                message: more_errors(self.errors_not_kept, &self.location),
            });
        }
    }

    /// Adds an error met after the file's errors were closed
    /// ([`FileSummary::close_errors`]: an object the store left out as it
    /// committed): kept while fewer than [`KEPT_ERRORS_PER_FILE`] are,
    /// else counted, the "… more" error saying so.
    pub(crate) fn add_late_error(&mut self, error: InputError) {
        if !self.more_said && self.errors.len() < KEPT_ERRORS_PER_FILE {
            self.errors.push(error);
            return;
        }
        self.errors_not_kept += 1;
        if self.more_said {
            self.errors.pop();
            self.more_said = false;
        }
        self.close_errors();
    }

    /// The file's input errors, counted ones included (the "… more" error
    /// itself not).
    pub fn error_total(&self) -> u64 {
        self.errors.len() as u64 - u64::from(self.more_said) + self.errors_not_kept
    }
}

/// `… and 299,900 more errors like these in FILE (…)`.
pub(crate) fn more_errors(count: u64, location: &str) -> String {
    format!(
        "… and {} more errors like these in {location} (only the first {KEPT_ERRORS_PER_FILE} are shown and \
         stored; the others are counted)",
        thousands(count)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(line: u64) -> InputError {
        InputError {
            origin: Origin { location: "f.ndjson".into(), line: Some(line), item: None },
            column: None,
            message: "bad".into(),
        }
    }

    #[test]
    fn errors_past_the_cap_are_counted_and_said_once() {
        let mut s = FileSummary { location: "f.ndjson".into(), ..FileSummary::default() };
        s.add_errors((1..=250).map(error).collect());
        for line in 251..=300_000 {
            s.add_error(error(line));
        }
        s.close_errors();
        assert_eq!((s.errors.len(), s.errors_not_kept, s.error_total()), (101, 299_900, 300_000));
        assert_eq!(s.errors[99].origin.line, Some(100));
        assert_eq!(
            s.errors[100].to_string(),
            "f.ndjson: … and 299,900 more errors like these in f.ndjson (only the first 100 are shown and stored; \
             the others are counted)"
        );
        let mut few = FileSummary { location: "g".into(), ..FileSummary::default() };
        few.add_errors((1..=3).map(error).collect());
        few.close_errors();
        assert_eq!((few.errors.len(), few.error_total()), (3, 3));
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
