//! Staging API observations into a run and closing it: shared by the
//! snapshot and the recorder. Items the store cannot key, or whose pod /
//! node values the cluster model cannot read, are reported per resource and
//! recorded in `ingest_errors`; the others (and, for model problems, the
//! item itself) are stored.

use kdrift_rebalance::Scope;

use super::report::{run_status, ApiReport, ResourceReport, Severity};
use crate::store::Record;
use crate::store::RunWriter;
use crate::store::StoreError;
use crate::store::{prepare, Prepared};

/// Stages one observation, counting it (or its error) in `report`; an
/// item error is also noted to `writer` ([`RunWriter::note_error`]), which
/// writes it with the next commit.
///
/// # Errors
/// [`StoreError`] when the store fails.
pub fn stage_observation(
    writer: &mut RunWriter<'_>,
    record: Record,
    report: &mut ResourceReport,
) -> Result<(), StoreError> {
    let Prepared { origin, problem, row, .. } = prepare(record, writer.started_at());
    if let Some(problem) = problem {
        item_error(writer, report, format!("{origin}: {problem}; the version is stored, but analyses cannot use it"));
    }
    match row {
        Ok(row) => {
            writer.append(&row, &origin)?;
            report.received += 1;
        }
        Err(e) => item_error(writer, report, format!("{origin}: {e}")),
    }
    Ok(())
}

/// Reports an item error and notes it to `writer`, which writes it with
/// the next commit (a recorder killed later keeps it).
/// Past the first 100 of a resource, errors are only
/// counted ([`ResourceReport::item_errors_not_kept`]; break-it 34 M1).
pub fn item_error(writer: &mut RunWriter<'_>, report: &mut ResourceReport, message: String) {
    if report.item_errors.len() < crate::kept_errors::KEPT_ERRORS_PER_FILE {
        writer.note_error(&report.location, None, None, None, &message);
    }
    crate::kept_errors::keep(&mut report.item_errors, &mut report.item_errors_not_kept, message);
}

/// Records the per-resource summaries and problems (the item errors were
/// noted as they came, [`stage_observation`]), commits the run and
/// fills in what each resource added.
///
/// # Errors
/// [`StoreError`] when the store fails.
pub fn finish(
    mut writer: RunWriter<'_>,
    cluster: &str,
    scope: &Scope,
    mut resources: Vec<ResourceReport>,
) -> Result<ApiReport, StoreError> {
    let mut errors = 0u64;
    for r in &mut resources {
        let item_errors = r.item_error_total();
        if r.item_errors_not_kept > 0 {
            let more = crate::kept_errors::more_errors(r.item_errors_not_kept, &r.location);
            writer.note_error(&r.location, None, None, None, &more);
            r.item_errors.push(more);
        }
        let events = if r.resource.starts_with("events") { r.received } else { 0 };
        writer.record_file(&r.location, "api", r.received, events, r.received - events, 0, item_errors);
        if let Some(p) = &r.problem {
            writer.note_error(&r.location, None, None, None, &p.message);
            if p.severity == Severity::Error {
                errors += 1;
            }
        }
        errors += item_errors;
    }
    let status = run_status(&resources);
    let run_id = writer.run_id();
    let committed = writer.commit(status, errors)?;
    let (counts, per_location, status) = (committed.counts, committed.per_location, committed.status);
    // Objects the store left out, too big for its memory limit: item
    // errors of their resource (already in `ingest_errors`).
    for left_out in &committed.rejected {
        if let Some(r) = resources.iter_mut().find(|r| r.location == left_out.origin.location) {
            r.received = r.received.saturating_sub(1);
            let message = kdrift_rebalance::mask_shown(&format!("{}: {}", left_out.origin, left_out.message));
            crate::kept_errors::keep(&mut r.item_errors, &mut r.item_errors_not_kept, message);
        }
    }
    for r in &mut resources {
        r.added = per_location.iter().find(|(l, _)| *l == r.location).map_or(0, |(_, n)| *n);
        r.duplicates = r.received.saturating_sub(r.added);
    }
    Ok(ApiReport {
        run_id,
        status,
        cluster: cluster.to_string(),
        scope: scope.to_string(),
        resources,
        counts,
        usage: None,
    })
}
