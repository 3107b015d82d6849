ALTER TABLE `events` ADD `blocked_by` text;
--> statement-breakpoint
-- The gate's rules changed (endpoint, method and session blocks; refusals that lapse) and so did A2A identities:
-- every partition is replayed. A partition without storms is replayed by the next batch that touches it, and all of
-- them once at start-up, after the stored identities and lapses are derived again (api/services/stored-facts.ts).
UPDATE gate_partitions SET storms = NULL;
--> statement-breakpoint
DELETE FROM settings WHERE key = 'storms_built' AND EXISTS (SELECT 1 FROM events);
--> statement-breakpoint
-- A store with no events has nothing to file again (api/services/stored-facts.ts).
INSERT INTO settings (key, value) SELECT 'stored_facts_v2', 'new store' WHERE NOT EXISTS (SELECT 1 FROM events);
