//! Migration 16 (queries/schema/v16.sql): every stored pod version's model
//! (`pod_versions.model`, the fields the cluster model reads:
//! `kdrift_rebalance::pod_model_fields`) derived again from its whole object,
//! because the model now reads fields an older kdrift cut away (a pod's
//! container restarts, images, conditions, spread constraints). The usage
//! columns are read again from the new model with the function ingest uses,
//! so that a migrated store holds what a new ingest of the same objects
//! would: a pod whose newly read fields are malformed gets its
//! `model_error` (and is then left out of the requested sums, which are
//! derived again).

use crate::writer::UsageColumns;
use crate::{sql, Store, StoreError, REQUESTED_DERIVATIONS};

/// obs_ids per slice of `observations` read at once: at most this many pod
/// objects (kilobytes each) held in memory.
const SLICE: i64 = 20_000;

impl Store {
    /// Derives every pod version's model and usage columns again from its
    /// object, in obs_id slices (each on every core), copies them into
    /// `pod_versions`, then derives the requested-amount changes and
    /// checkpoints again when any usage column changed, or else keeps the
    /// drain moves kept under schema 15 fresh. In the migration's transaction.
    pub(crate) fn rederive_pod_models(&self) -> Result<(), StoreError> {
        let (first, last): (i64, i64) =
            self.query_one(&sql::SCHEMA_V16_OBS_RANGE, [], |r| Ok((r.get(0)?, r.get(1)?)))?;
        {
            let append_err = |source| self.append_failed("pod_model_rederived", source);
            let mut appender = self.conn.appender("pod_model_rederived").map_err(append_err)?;
            let mut from = first;
            while from <= last {
                let to = from.saturating_add(SLICE);
                let objects = self.query_map(&sql::SCHEMA_V16_POD_OBJECTS, duckdb::params![from, to], |r| {
                    Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
                })?;
                for (obs_id, model, usage) in crate::parallel::map_ordered(objects, remodel) {
                    appender
                        .append_row(duckdb::params![
                            obs_id,
                            model,
                            usage.usage_node,
                            usage.cpu,
                            usage.memory,
                            usage.other,
                            usage.model_error,
                            usage.labels,
                            usage.scheduling_terms
                        ])
                        .map_err(append_err)?;
                }
                from = to;
            }
            appender.flush().map_err(append_err)?;
        }
        let changed: i64 = self.query_one(&sql::SCHEMA_V16_USAGE_CHANGED, [], |r| r.get(0))?;
        self.batch(&sql::SCHEMA_V16_BACKFILL)?;
        if changed == 0 {
            self.execute(&sql::SCHEMA_V16_MOVES_FRESH, [])?;
        } else {
            tracing::info!(changed, "pod versions the model now reads otherwise: requested amounts derived again");
            for q in REQUESTED_DERIVATIONS {
                self.execute(q, duckdb::params![-1i64, 0i64])?;
            }
        }
        Ok(())
    }
}

/// One pod version's model (JSON text) and usage columns, from its stored
/// object as ingest computes them (`crate::prepare`). An object that is not
/// JSON (never stored so) keeps its text as the model, as
/// `derive_pod_versions` does without one, and the parser's error.
fn remodel((obs_id, object): (i64, String)) -> (i64, String, UsageColumns) {
    match serde_json::from_str::<serde_json::Value>(&object) {
        Ok(pod) => {
            let model = kdrift_rebalance::model_fields("Pod", &pod).unwrap_or(pod);
            let usage = UsageColumns::of(&model);
            (obs_id, model.to_string(), usage)
        }
        Err(e) => (obs_id, object, UsageColumns { model_error: Some(e.to_string()), ..UsageColumns::default() }),
    }
}
