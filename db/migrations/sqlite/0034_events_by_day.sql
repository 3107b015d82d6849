-- The dedupe key of events becomes (event_id, ts, server), as on PostgreSQL, where day partitions need the time in
-- every unique key (ADR 9) and distribution by server the server (ADR 14): one key, one behaviour on both stores.
DROP INDEX `events_event_id_uq`;--> statement-breakpoint
CREATE UNIQUE INDEX `events_event_id_uq` ON `events` (`event_id`,`ts`,`server`);
