-- name: usage_stored_in_range
-- purpose: Whether `usage_samples` holds any sample of source $1 measured
--   in [$2, $3]: when none, a batch without repeats cannot hold a stored
--   key and is appended straight into `usage_samples` (no staging, no
--   anti-join); the range reads only the row groups whose `sampled_at`
--   zone maps overlap it. Any stored sample counts, whatever measures it
--   carries: a range holding cpu samples only takes the staging path,
--   where a batch's memory fills them (`usage_fill_samples`).
-- params: $1 source VARCHAR, $2 first_at_us BIGINT (UTC µs), $3 last_at_us BIGINT (UTC µs)
-- columns: stored BOOLEAN
SELECT EXISTS (
    SELECT 1 FROM usage_samples
    WHERE source = $1 AND sampled_at BETWEEN make_timestamp($2) AND make_timestamp($3)
) AS stored;
