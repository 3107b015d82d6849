-- The content view and hidden failures (issue 38, ADR 17): act_profile holds a third view and two flags. SQLite's
-- integer column holds them as it is; the profiles of events stored before this migration, failures and successes
-- alike, are read again from their lines by api/services/actionability-backfill.ts (version 2), once, at start; a
-- store with no events has nothing to read and is marked done here.
INSERT INTO settings (key, value) SELECT 'actionability_v2', 'new store' WHERE NOT EXISTS (SELECT 1 FROM events);
