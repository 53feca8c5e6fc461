-- name: usage_record_window
-- purpose: Records one committed Prometheus query window (inside the
--   transaction that commits its samples, so both land or neither).
-- params: $1 pull_key VARCHAR, $2 window_start_us BIGINT (UTC µs), $3 window_end_us BIGINT (UTC µs),
--   $4 run_id BIGINT, $5 samples_read BIGINT, $6 committed_at_us BIGINT (UTC µs)
-- columns: none
INSERT INTO usage_windows VALUES ($1, make_timestamp($2), make_timestamp($3), $4, $5, make_timestamp($6));
