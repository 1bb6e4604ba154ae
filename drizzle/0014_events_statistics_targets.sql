-- ANALYZE samples 300 rows per unit of the largest statistics target among a table's columns,
-- and on the embedded database nothing else runs while it does: at 1M events the default (100)
-- made `analyze events` read 30,000 rows and take 290-640 ms. Every read of events walks
-- events_pkey or events_occurred_at_idx whatever the estimates, so 10 (a 3,000-row sample)
-- serves the planner as well. No statement filters on data: sorting its jsonb sample was
-- most of what was left.
ALTER TABLE "events"
  ALTER COLUMN "id" SET STATISTICS 10,
  ALTER COLUMN "type" SET STATISTICS 10,
  ALTER COLUMN "occurred_at" SET STATISTICS 10,
  ALTER COLUMN "data" SET STATISTICS 0;
