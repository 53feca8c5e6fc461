-- name: demo_seeds
-- purpose: The seeds of the demo scenarios a store holds (`kdrift demo --save` refuses to mix two).
-- params: none
-- columns: location VARCHAR (demo:seed=<seed>)
SELECT DISTINCT location
FROM ingest_runs
WHERE source_kind = 'demo' AND status <> 'failed'
ORDER BY location;
