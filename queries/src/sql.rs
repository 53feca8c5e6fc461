//! Every SQL statement kdrift runs, embedded once from `queries/` under a
//! named constant. Parameters are always bound (`$1`, `$2`, …), never
//! formatted into the text. [`ALL`] lists them (for `kdrift query --list`).

/// One named SQL file from `queries/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NamedQuery {
    /// The query's name (its `-- name:` header).
    pub name: &'static str,
    /// Its path under `queries/`.
    pub file: &'static str,
    /// The SQL text.
    pub sql: &'static str,
}

macro_rules! queries {
    ($($(#[$doc:meta])* $ident:ident = $name:literal, $file:literal;)*) => {
        $(
            $(#[$doc])*
            pub const $ident: NamedQuery = NamedQuery {
                name: $name,
                file: $file,
                sql: include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/", $file)),
            };
        )*
        /// Every named query, in registry order.
        pub const ALL: &[NamedQuery] = &[$($ident),*];
    };
}

queries! {
    /// Whether the database is a kdrift store.
    HAS_META = "has_meta", "schema/has_meta.sql";
    /// Number of tables in the database.
    TABLE_COUNT = "table_count", "schema/table_count.sql";
    /// The store's schema version.
    GET_SCHEMA_VERSION = "get_schema_version", "schema/get_version.sql";
    /// Records the schema version.
    SET_SCHEMA_VERSION = "set_schema_version", "schema/set_version.sql";
    /// DDL of schema version 1.
    SCHEMA_V1 = "schema_v1", "schema/v1.sql";
    /// Migration from schema version 1 to 2 (VictoriaLogs windows).
    SCHEMA_V2 = "schema_v2", "schema/v2.sql";
    /// Migration 2 → 3: `pod_versions.model`.
    SCHEMA_V3 = "schema_v3", "schema/v3.sql";
    /// Migration 3 → 4: version intervals and per-version requested amounts.
    SCHEMA_V4 = "schema_v4", "schema/v4.sql";
    /// Migration 3 → 4: the pod models to compute usage fields for (in Rust).
    SCHEMA_V4_POD_MODELS = "schema_v4_pod_models", "schema/v4_pod_models.sql";
    /// Migration 3 → 4: copies the computed usage fields into `pod_versions`.
    SCHEMA_V4_BACKFILL = "schema_v4_backfill", "schema/v4_backfill.sql";
    /// Migration 4 → 5: bindings and eviction evidence as tables kept by ingest.
    SCHEMA_V5 = "schema_v5", "schema/v5.sql";
    /// Migration 5 → 6: node signals as a table kept by ingest.
    SCHEMA_V6 = "schema_v6", "schema/v6.sql";
    /// Migration 6 → 7: versions tied on observed_at ordered by resourceVersion; derived tables emptied for re-deriving.
    SCHEMA_V7 = "schema_v7", "schema/v7.sql";
    /// Migration 7 → 8: requested amounts per node as changes and hourly checkpoints kept by ingest.
    SCHEMA_V8 = "schema_v8", "schema/v8.sql";
    /// Migration 8 → 9: the drain timeline's moves kept in the store (`drain_moves`).
    SCHEMA_V9 = "schema_v9", "schema/v9.sql";
    /// Migration 9 → 10: what the scheduler's filters read of an existing pod, per pod version.
    SCHEMA_V10 = "schema_v10", "schema/v10.sql";
    /// Migration 10 → 11: the name index (`name_index`, sorted by object name).
    SCHEMA_V11 = "schema_v11", "schema/v11.sql";
    /// Migration 11 → 12: the kept drain episodes (`drain_episodes`), `pod_bindings` sorted by node.
    SCHEMA_V12 = "schema_v12", "schema/v12.sql";
    /// Migration 12: how many pod versions are kept without a namespace.
    SCHEMA_V12_UNNAMESPACED_PODS = "schema_v12_unnamespaced_pods", "schema/v12_unnamespaced_pods.sql";
    /// Migration 12: pod versions kept without a namespace become `default`'s.
    SCHEMA_V12_DEFAULT_NAMESPACE = "schema_v12_default_namespace", "schema/v12_default_namespace.sql";
    /// Migration 12 → 13: the ScalingReplicaSet event versions kept apart (`replica_set_scalings`).
    SCHEMA_V13 = "schema_v13", "schema/v13.sql";
    /// Migration 13 → 14: `first_seen_late` on pod versions (first observed over an hour after creation).
    SCHEMA_V14 = "schema_v14", "schema/v14.sql";
    /// Migration 14 → 15: `observations.object` stored with zstd compression (the table rebuilt).
    SCHEMA_V15 = "schema_v15", "schema/v15.sql";
    /// Migration 15 → 16: the scratch table of every pod version's model derived again from its object.
    SCHEMA_V16 = "schema_v16", "schema/v16.sql";
    /// Migration 16: the obs_id range of the stored pod versions.
    SCHEMA_V16_OBS_RANGE = "schema_v16_obs_range", "schema/v16_obs_range.sql";
    /// Migration 16: one obs_id slice of the whole Pod objects.
    SCHEMA_V16_POD_OBJECTS = "schema_v16_pod_objects", "schema/v16_pod_objects.sql";
    /// Migration 16: how many pod versions get other usage columns.
    SCHEMA_V16_USAGE_CHANGED = "schema_v16_usage_changed", "schema/v16_usage_changed.sql";
    /// Migration 16: copies the derived models and usage columns into `pod_versions`.
    SCHEMA_V16_BACKFILL = "schema_v16_backfill", "schema/v16_backfill.sql";
    /// Migration 16: the drain moves kept under schema 15 stay fresh.
    SCHEMA_V16_MOVES_FRESH = "schema_v16_moves_fresh", "schema/v16_moves_fresh.sql";
    /// Migration 16 → 17: measured usage samples (`usage_samples`) and the Prometheus windows committed (`usage_windows`).
    SCHEMA_V17 = "schema_v17", "schema/v17.sql";
    /// Migration 17 → 18: `batch_pods` and `requested_changed_since` also name the pods of the events that end a stored pod's newest version (`derive_pod_intervals`).
    SCHEMA_V18 = "schema_v18", "schema/v18.sql";
    /// Records the schema version after a migration.
    UPDATE_SCHEMA_VERSION = "update_schema_version", "schema/update_version.sql";
    /// Opens a transaction.
    TX_BEGIN = "tx_begin", "tx/begin.sql";
    /// Commits the open transaction.
    TX_COMMIT = "tx_commit", "tx/commit.sql";
    /// Writes the WAL into the database file.
    CHECKPOINT = "checkpoint", "tx/checkpoint.sql";
    /// Rolls back the open transaction.
    TX_ROLLBACK = "tx_rollback", "tx/rollback.sql";
    /// Benchmark baseline: DuckDB's read_json loading an NDJSON file into a table (scratch database only).
    BENCH_READ_JSON_BASELINE = "bench_read_json_baseline", "bench/read_json_baseline.sql";
    /// Benchmark baseline: DuckDB's read_json loading a kubectl List's items into a table (scratch database only).
    BENCH_READ_JSON_LIST_BASELINE = "bench_read_json_list_baseline", "bench/read_json_list_baseline.sql";
    /// Benchmark baseline: rows loaded by [`BENCH_READ_JSON_BASELINE`].
    BENCH_BASELINE_COUNT = "bench_baseline_count", "bench/baseline_count.sql";
    /// Starts an ingest run; returns its id.
    BEGIN_RUN = "begin_run", "ingest/begin_run.sql";
    /// Closes an ingest run with status and counts.
    FINISH_RUN = "finish_run", "ingest/finish_run.sql";
    /// Records a per-file summary.
    RECORD_FILE = "record_file", "ingest/record_file.sql";
    /// Records an input error.
    RECORD_ERROR = "record_error", "ingest/record_error.sql";
    /// Creates this connection's (TEMP) staging table, if missing.
    CREATE_STAGING = "create_staging", "ingest/create_staging.sql";
    /// Drops the (TEMP) staging table: frees what its deleted rows hold (issue 34).
    DROP_STAGING = "drop_staging", "ingest/drop_staging.sql";
    /// Copies the rows still staged aside and drops the staging table (it is made anew: issue 34).
    KEEP_STAGED = "keep_staged", "ingest/keep_staged.sql";
    /// Moves the rows copied aside by `keep_staged` into the staging table made anew.
    RESTORE_STAGED = "restore_staged", "ingest/restore_staged.sql";
    /// Empties the staging table.
    CLEAR_STAGING = "clear_staging", "ingest/clear_staging.sql";
    /// Empties the staging table of a range of seqs (a batch, a part of one, one object).
    CLEAR_STAGED = "clear_staged", "ingest/clear_staged.sql";
    /// Where one staged object came from, its identity and size (an object too big to store alone).
    STAGED_OBJECT = "staged_object", "ingest/staged_object.sql";
    /// The largest staged object of a range of seqs, its size and the range's total (a part to split).
    STAGED_LARGEST = "staged_largest", "ingest/staged_largest.sql";
    /// One DuckDB thread while an ingest run is open (kdrift's own threads prepare its records).
    WRITER_THREADS = "writer_threads", "ingest/writer_threads.sql";
    /// DuckDB's default thread count again, when an ingest run's writer goes.
    RESET_THREADS = "reset_threads", "ingest/reset_threads.sql";
    /// Moves new staged versions into `observations`.
    COMMIT_OBSERVATIONS = "commit_observations", "ingest/commit_observations.sql";
    /// Gives the staged versions (of a range of seqs) the store has never seen their obs_ids.
    NUMBER_STAGED = "number_staged", "ingest/number_staged.sql";
    /// The highest obs_id (where a batch's observations start).
    MAX_OBS_ID = "max_obs_id", "ingest/max_obs_id.sql";
    /// Updates the counts of a run still going.
    RUN_PROGRESS = "run_progress", "ingest/run_progress.sql";
    /// Marks `failed` the runs a dead process left `running`; returns them.
    CLOSE_ABANDONED_RUNS = "close_abandoned_runs", "ingest/close_abandoned_runs.sql";
    /// The runs still `running` (a read-only open warns about them).
    UNCLOSED_RUNS = "unclosed_runs", "ingest/unclosed_runs.sql";
    /// Whether one run is still `running` (a run left to the store's `Drop`).
    RUN_IS_RUNNING = "run_is_running", "ingest/run_is_running.sql";
    /// Objects of one resource the API sources last saw alive.
    KNOWN_OBJECTS = "known_objects", "api/known_objects.sql";
    /// The newest stored version of one object.
    LAST_VERSION = "last_version", "api/last_version.sql";
    /// New versions per file of a run.
    RUN_ADDED_BY_LOCATION = "run_added_by_location", "ingest/run_added_by_location.sql";
    /// Node names one run stored with several uids (two clusters' dumps together?).
    RUN_NODE_UIDS = "run_node_uids", "ingest/run_node_uids.sql";
    /// The versions and events a run stored with a time before 1970 or after the ingest + 1 day.
    RUN_IMPLAUSIBLE_TIMES = "run_implausible_times", "ingest/run_implausible_times.sql";
    /// Derives `event_versions` for a run.
    DERIVE_EVENT_VERSIONS = "derive_event_versions", "derive/event_versions.sql";
    /// Copies a run's ScalingReplicaSet event versions into `replica_set_scalings` (schema v13).
    DERIVE_REPLICA_SET_SCALINGS = "derive_replica_set_scalings", "derive/replica_set_scalings.sql";
    /// Derives `pod_versions` for a run.
    DERIVE_POD_VERSIONS = "derive_pod_versions", "derive/pod_versions.sql";
    /// Derives `node_versions` for a run.
    DERIVE_NODE_VERSIONS = "derive_node_versions", "derive/node_versions.sql";
    /// Appends the `name_index` entries of a run's new event, pod and node versions, sorted among themselves.
    DERIVE_NAME_INDEX = "derive_name_index", "derive/name_index.sql";
    /// Adds the namespaces of a run's new pod versions to `pod_namespaces`.
    DERIVE_POD_NAMESPACES = "derive_pod_namespaces", "derive/pod_namespaces.sql";
    /// How many `name_index` rows were appended since its last whole sort, and how many it sorted.
    NAME_INDEX_UNSORTED = "name_index_unsorted", "derive/name_index_unsorted.sql";
    /// Sorts `name_index` whole again.
    SORT_NAME_INDEX = "sort_name_index", "derive/sort_name_index.sql";
    /// Counts the `pod_bindings` rows a batch appended out of node order.
    POD_BINDINGS_APPENDED = "pod_bindings_appended", "derive/pod_bindings_appended.sql";
    /// How many `pod_bindings` rows were appended since its last whole sort, and how many it sorted.
    POD_BINDINGS_UNSORTED = "pod_bindings_unsorted", "derive/pod_bindings_unsorted.sql";
    /// Sorts `pod_bindings` whole again, by node.
    SORT_POD_BINDINGS = "sort_pod_bindings", "derive/sort_pod_bindings.sql";
    /// Sets `valid_until` / `first_version` of the pods a run touched (every pod when run_id < 0).
    DERIVE_POD_INTERVALS = "derive_pod_intervals", "derive/pod_intervals.sql";
    /// Sets `valid_until` / `first_version` of the nodes a run touched (every node when run_id < 0).
    DERIVE_NODE_INTERVALS = "derive_node_intervals", "derive/node_intervals.sql";
    /// Sets `first_seen_late` of a batch's pod versions (every version when run_id < 0; schema v14).
    DERIVE_POD_FIRST_SEEN_LATE = "derive_pod_first_seen_late", "derive/pod_first_seen_late.sql";
    /// Removes the `pod_bindings` rows of the pods a batch names (every row when run_id < 0).
    CLEAR_POD_BINDINGS = "clear_pod_bindings", "derive/clear_pod_bindings.sql";
    /// Writes the `pod_bindings` rows (every binding to a node) of the pods a batch names.
    DERIVE_POD_BINDINGS = "derive_pod_bindings", "derive/pod_bindings.sql";
    /// Removes the `eviction_evidence` rows of the pods a batch names (every row when run_id < 0).
    CLEAR_EVICTION_EVIDENCE = "clear_eviction_evidence", "derive/clear_eviction_evidence.sql";
    /// Writes the `eviction_evidence` rows (evicted or stopped pods) of the pods a batch names.
    DERIVE_EVICTION_EVIDENCE = "derive_eviction_evidence", "derive/eviction_evidence.sql";
    /// Removes the `node_signals` rows of the nodes a batch names (every row when run_id < 0).
    CLEAR_NODE_SIGNALS = "clear_node_signals", "derive/clear_node_signals.sql";
    /// Writes the `node_signals` rows (cordons, readiness, reboots, node events) of the nodes a batch names.
    DERIVE_NODE_SIGNALS = "derive_node_signals", "derive/node_signals.sql";
    /// Removes the `requested_changes` a batch can change (every row when run_id < 0).
    CLEAR_REQUESTED_CHANGES = "clear_requested_changes", "derive/clear_requested_changes.sql";
    /// Writes the `requested_changes` (per instant and node: pods starting or stopping to count) a batch can change.
    DERIVE_REQUESTED_CHANGES = "derive_requested_changes", "derive/requested_changes.sql";
    /// Removes the `requested_checkpoints` a batch can change (every row when run_id < 0).
    CLEAR_REQUESTED_CHECKPOINTS = "clear_requested_checkpoints", "derive/clear_requested_checkpoints.sql";
    /// Removes the `requested_checkpoint_times` a batch can change (every row when run_id < 0).
    CLEAR_REQUESTED_CHECKPOINT_TIMES = "clear_requested_checkpoint_times", "derive/clear_requested_checkpoint_times.sql";
    /// Writes the hourly `requested_checkpoints` after the latest one left.
    DERIVE_REQUESTED_CHECKPOINTS = "derive_requested_checkpoints", "derive/requested_checkpoints.sql";
    /// Writes the `requested_checkpoint_times` after the latest one left.
    DERIVE_REQUESTED_CHECKPOINT_TIMES = "derive_requested_checkpoint_times", "derive/requested_checkpoint_times.sql";
    /// What the store holds (counts).
    STORE_COUNTS = "store_counts", "stats/store_counts.sql";
    /// DuckDB's memory limit for the open store (issue 39).
    MEMORY_SETTINGS = "memory_settings", "stats/memory_settings.sql";
    /// DuckDB's temporary directory for the open store (issue 39).
    TEMP_DIRECTORY = "temp_directory", "stats/temp_directory.sql";
    /// The DuckDB library's version (`kdrift version`).
    DUCKDB_VERSION = "duckdb_version", "stats/duckdb_version.sql";
    /// Every ingest run, newest first.
    RUNS = "runs", "stats/runs.sql";
    /// The errors one ingest run recorded.
    RUN_ERRORS = "run_errors", "stats/run_errors.sql";
    /// Source kinds of the store's runs.
    RUN_SOURCES = "run_sources", "stats/run_sources.sql";
    /// The locations (`demo:seed=<seed>`) of the demo runs a store holds.
    DEMO_SEEDS = "demo_seeds", "stats/demo_seeds.sql";
    /// Pods that had FailedScheduling, longest-pending first.
    PENDING_PODS = "pending_pods", "why_pending/pending_pods.sql";
    /// The distinct FailedScheduling events of one pod.
    POD_FAILURES = "pod_failures", "why_pending/pod_failures.sql";
    /// Scheduled events of one pod.
    POD_SCHEDULED = "pod_scheduled", "why_pending/pod_scheduled.sql";
    /// The kubelet's admission rejections of one pod (OutOfcpu, …).
    POD_REJECTIONS = "pod_rejections", "why_pending/pod_rejections.sql";
    /// Pods the kubelet refused at admission that had no FailedScheduling event.
    REFUSED_PODS = "refused_pods", "why_pending/refused_pods.sql";
    /// Controllers whose pods the kubelet refused again and again (a create/refuse loop).
    REFUSAL_LOOPS = "refusal_loops", "why_pending/refusal_loops.sql";
    /// Evidence that one pod was deleted after an instant (its versions, its owner's events).
    POD_DELETIONS = "pod_deletions", "why_pending/pod_deletions.sql";
    /// Who created one pod (its controller's SuccessfulCreate) and when an event first named it.
    POD_CREATOR = "pod_creator", "why_pending/pod_creator.sql";
    /// The version of one owner object (or of every object of a kind in a namespace) current at an instant.
    OWNER_VERSIONS_AT = "owner_versions_at", "why_pending/owner_versions_at.sql";
    /// The namespaces in which a pod of a name had FailedScheduling events.
    POD_NAME_NAMESPACES = "pod_name_namespaces", "why_pending/pod_name_namespaces.sql";
    /// The namespaces of the Jobs and CronJobs of one name.
    JOB_NAME_NAMESPACES = "job_name_namespaces", "postmortem/job_name_namespaces.sql";
    /// Every Job and CronJob by namespace and name (shell completion).
    JOB_NAMES = "job_names", "postmortem/job_names.sql";
    /// Every pod by namespace and name (shell completion).
    POD_NAMES = "pod_names", "why_pending/pod_names.sql";
    /// Every stored pod's latest labels (`-l SELECTOR`).
    POD_LABELS = "pod_labels", "why_pending/pod_labels.sql";
    /// Latest version of one pod at or before an instant (else the earliest after).
    POD_AT = "pod_at", "state/pod_at.sql";
    /// When the store has one pod, per uid: from its creation to its last version's end.
    POD_SPANS = "pod_spans", "state/pod_spans.sql";
    /// Latest version of every pod at or before an instant (else the earliest after).
    PODS_AT = "pods_at", "state/pods_at.sql";
    /// How many rows `pods_at` gives at an instant (no model read).
    PODS_AT_COUNT = "pods_at_count", "state/pods_at_count.sql";
    /// What the scheduler's filters read of every pod at an instant (schema v10), and which to read whole.
    POD_FILTER_FIELDS_AT = "pod_filter_fields_at", "state/pod_filter_fields_at.sql";
    /// At an instant, the pod versions why-pending reads whole when it sums the others (and what the sums counted of them).
    PODS_READ_WHOLE_AT = "pods_read_whole_at", "state/pods_read_whole_at.sql";
    /// The summed pods counting toward given nodes at an instant (their obs_ids).
    PODS_ON_NODES_AT = "pods_on_nodes_at", "state/pods_on_nodes_at.sql";
    /// The namespace and name of every pod stored at an instant (no model).
    POD_NAMES_AT = "pod_names_at", "state/pod_names_at.sql";
    /// The whole models of given pod versions (by obs_id).
    POD_MODELS = "pod_models", "state/pod_models.sql";
    /// Latest version of every node at or before an instant (else the earliest after).
    NODES_AT = "nodes_at", "state/nodes_at.sql";
    /// The nodes at several instants (one query; the timeline's before/after amounts).
    NODES_AT_INSTANTS = "nodes_at_instants", "state/nodes_at_instants.sql";
    /// Per instant and node: pods counting toward it and their summed requests (no pod object read).
    REQUESTED_BY_NODE = "requested_by_node", "state/requested_by_node.sql";
    /// Per instant: pods stored, estimated, unreadable.
    PODS_SUMMARY_AT = "pods_summary_at", "state/pods_summary_at.sql";
    /// The instants of the requested-amount checkpoints (schema v8), oldest first.
    REQUESTED_CHECKPOINT_TIMES = "requested_checkpoint_times", "state/requested_checkpoint_times.sql";
    /// Per node at one instant: a checkpoint plus the changes since (what `requested_by_node` counts, but estimated pods and other resources).
    REQUESTED_SINCE_CHECKPOINT = "requested_since_checkpoint", "state/requested_since_checkpoint.sql";
    /// At one instant, the pod versions the checkpoints leave to the reader: estimated, unreadable, other resources.
    REQUESTED_EXTRAS_AT = "requested_extras_at", "state/requested_extras_at.sql";
    /// `requested_since_checkpoint` at several instants in one query (each instant's checkpoint found in SQL).
    REQUESTED_AT_INSTANTS = "requested_at_instants", "state/requested_at_instants.sql";
    /// `requested_extras_at` at several instants in one query.
    REQUESTED_EXTRAS_AT_INSTANTS = "requested_extras_at_instants", "state/requested_extras_at_instants.sql";
    /// Latest version of every object of one kind at or before an instant (else the earliest after).
    OBJECTS_AT = "objects_at", "state/objects_at.sql";
    /// Pods stopped or deleted at or before an instant (earliest evidence per pod).
    PODS_GONE = "pods_gone", "state/pods_gone.sql";
    /// Pods bound at or before an instant that only their Scheduled event shows.
    EVENT_ONLY_PLACEMENTS = "event_only_placements", "state/event_only_placements.sql";
    /// Per pod with a Scheduled event, the newest event time of that event's source.
    SCHEDULED_COVERAGE = "scheduled_coverage", "state/scheduled_coverage.sql";
    /// Namespaces whose pods events name between two instants while the store holds no Pod object of theirs.
    UNSTORED_NAMESPACES = "unstored_namespaces", "state/unstored_namespaces.sql";
    /// Per pod owner, the nearest pod version and owner template showing requests.
    OWNER_SAMPLES = "owner_samples", "state/owner_samples.sql";
    /// The store's newest observation time.
    LATEST_OBSERVATION = "latest_observation", "stats/latest_observation.sql";
    /// The newest observation time within plausible bounds.
    LATEST_OBSERVATION_PLAUSIBLE = "latest_observation_plausible", "stats/latest_observation_plausible.sql";
    /// Every event's current version.
    EVENT_LIST = "event_list", "stats/event_list.sql";
    /// Records a committed VictoriaLogs query window.
    VL_RECORD_WINDOW = "vl_record_window", "victorialogs/record_window.sql";
    /// End of a VictoriaLogs pull's last committed window (`--resume`).
    VL_LAST_WINDOW_END = "vl_last_window_end", "victorialogs/last_window_end.sql";
    /// The committed VictoriaLogs query windows.
    VL_WINDOWS = "vl_windows", "victorialogs/windows.sql";
    /// Creates this connection's (TEMP) staging table of usage samples, if missing.
    USAGE_CREATE_STAGING = "usage_create_staging", "usage/create_staging.sql";
    /// Empties the staging table of usage samples.
    USAGE_CLEAR_STAGING = "usage_clear_staging", "usage/clear_staging.sql";
    /// Moves the staged usage samples into `usage_samples`, deduplicated.
    USAGE_COMMIT_SAMPLES = "usage_commit_samples", "usage/commit_samples.sql";
    /// Fills the NULL measures of stored usage samples from the staged samples of their key.
    USAGE_FILL_SAMPLES = "usage_fill_samples", "usage/fill_samples.sql";
    /// Whether usage samples of a source are stored in a range (the append-straight check).
    USAGE_STORED_IN_RANGE = "usage_stored_in_range", "usage/stored_in_range.sql";
    /// Records a committed Prometheus query window of usage samples.
    USAGE_RECORD_WINDOW = "usage_record_window", "usage/record_window.sql";
    /// End of a Prometheus pull's last committed window (`--resume`).
    USAGE_LAST_WINDOW_END = "usage_last_window_end", "usage/last_window_end.sql";
    /// The committed Prometheus query windows of usage samples.
    USAGE_WINDOWS = "usage_windows", "usage/windows.sql";
    /// Measured usage samples (CPU millicores, memory bytes) between two instants.
    USAGE_SAMPLES = "usage_samples", "usage/samples.sql";
    /// Measured usage per node and pod at an instant: each object's latest samples.
    USAGE_LATEST_AT = "usage_latest_at", "usage/latest_at.sql";
    /// Measured usage per node and pod over a window before an instant: a percentile of its samples.
    USAGE_PERCENTILE_AT = "usage_percentile_at", "usage/percentile_at.sql";
    /// How many usage samples the store holds, and the first and last instants.
    USAGE_SPAN = "usage_span", "usage/span.sql";
    /// Every node's measured usage per step bucket (mean and max) between two instants.
    USAGE_NODE_BUCKETS = "usage_node_buckets", "usage/node_buckets.sql";
    /// Each pod's measured usage on a node (mean and max) between two instants.
    USAGE_PODS_BETWEEN = "usage_pods_between", "usage/pods_between.sql";
    /// The newest kdrift rebalance run of each outcome.
    REBALANCE_LATEST_RUNS = "rebalance_latest_runs", "rebalance/latest_runs.sql";
    /// Cordon, readiness, reboot and node-controller signals per node between two instants.
    NODE_SIGNALS = "node_signals", "timeline/node_signals.sql";
    /// Whether the kept drain moves (schema v9) were computed from the history as it is now.
    DRAIN_MOVES_FRESH = "drain_moves_fresh", "timeline/drain_moves_fresh.sql";
    /// The kept drain moves of a range of operations.
    DRAIN_MOVES = "drain_moves", "timeline/drain_moves.sql";
    /// The kept drain moves of a range of operations whose replacement was bound to one node.
    DRAIN_MOVES_TO_NODE = "drain_moves_to_node", "timeline/drain_moves_to_node.sql";
    /// The kept drain operations (schema v12) started up to an instant: number, start, last signal.
    DRAIN_OPERATIONS_KEPT = "drain_operations_kept", "timeline/drain_operations_kept.sql";
    /// The kept episodes (schema v12) of some nodes: when each came back.
    DRAIN_EPISODES_ON_NODES = "drain_episodes_on_nodes", "timeline/drain_episodes_on_nodes.sql";
    /// Empties the kept drain moves before they are computed again.
    CLEAR_DRAIN_MOVES = "clear_drain_moves", "derive/clear_drain_moves.sql";
    /// Records which history the kept drain moves were computed from.
    DRAIN_MOVES_KEPT = "drain_moves_kept", "derive/drain_moves_kept.sql";
    /// Evidence of pods evicted or stopped on a node between two instants.
    POD_EVICTIONS = "pod_evictions", "timeline/pod_evictions.sql";
    /// Eviction evidence between two instants, counted per kind (`timeline drains` finding none).
    EVICTION_COUNTS = "eviction_counts", "timeline/eviction_counts.sql";
    /// Eviction evidence inside given node ranges (what a drain timeline's episodes can take), plus evidence naming no node.
    EPISODE_EVICTIONS = "episode_evictions", "timeline/episode_evictions.sql";
    /// The first and last instant the store knows about (`kdrift report`'s default range).
    TIME_SPAN = "time_span", "stats/time_span.sql";
    /// The store's first and last instants within plausible bounds.
    TIME_SPAN_PLAUSIBLE = "time_span_plausible", "stats/time_span_plausible.sql";
    /// Instants at which a node's requested amounts can change (the requested % charts' samples).
    REQUESTED_CHANGES = "requested_changes", "timeline/requested_changes.sql";
    /// The Jobs a name stands for (the Job, or a CronJob's Jobs), latest version each.
    JOBS = "jobs", "postmortem/jobs.sql";
    /// The Job and CronJob controllers' events about one Job.
    JOB_EVENTS = "job_events", "postmortem/job_events.sql";
    /// The pods of one Job, latest version each.
    JOB_PODS = "job_pods", "postmortem/job_pods.sql";
    /// ReplicaSets scaled up by their Deployment between two instants.
    SCALE_UPS = "scale_ups", "why_pending/scale_ups.sql";
    /// The events that say who moved a pod (descheduler, kdrift, Karpenter, cluster-autoscaler, node controller, HPA).
    MOVE_CAUSES = "move_causes", "why_pending/move_causes.sql";
    /// The owners of the pods bound to some nodes (whose drain moves `why-pending` follows).
    NODE_OWNERS = "node_owners", "why_pending/node_owners.sql";
    /// The pods of some owners (bindings of theirs, or eviction evidence under a name with their prefix).
    OWNER_PODS = "owner_pods", "why_pending/owner_pods.sql";
    /// The bindings of some pods, and every binding to some nodes.
    OWNER_BINDINGS = "owner_bindings", "why_pending/owner_bindings.sql";
    /// Every binding to one node up to an instant (`pod_bindings` is sorted by node).
    BINDINGS_TO_NODE = "bindings_to_node", "why_pending/bindings_to_node.sql";
    /// `pod_evictions` of some pods.
    OWNER_EVICTIONS = "owner_evictions", "why_pending/owner_evictions.sql";
    /// Pods bound to a node between two instants, with owner and creation.
    POD_PLACEMENTS = "pod_placements", "timeline/pod_placements.sql";
}

/// Finds a query by name.
pub fn by_name(name: &str) -> Option<&'static NamedQuery> {
    ALL.iter().find(|q| q.name == name)
}
