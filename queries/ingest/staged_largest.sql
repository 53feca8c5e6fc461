-- name: staged_largest
-- purpose: The largest staged object with seq in [$1, $2], its size and
--   the range's total: a batch part DuckDB ran out of memory committing is
--   split around its largest object when that holds half its bytes or more
--   (one object too big among small ones), else in halves (issue 34).
-- params: $1 from_seq BIGINT, $2 to_seq BIGINT
-- columns: seq BIGINT, bytes BIGINT (the object's compact JSON), total BIGINT (of every object in the range)
SELECT arg_max(seq, bytes) AS seq, max(bytes) AS bytes, sum(bytes)::BIGINT AS total
FROM staging_observations
WHERE seq BETWEEN $1 AND $2;
