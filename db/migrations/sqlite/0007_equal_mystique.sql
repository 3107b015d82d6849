CREATE TABLE `context_minute` (
	`start` integer NOT NULL,
	`server` text NOT NULL,
	`client` text NOT NULL,
	`requested` text NOT NULL,
	`applied` text NOT NULL,
	`reason` text NOT NULL,
	`requests` integer NOT NULL,
	PRIMARY KEY(`start`, `server`, `client`, `requested`, `applied`, `reason`)
);
--> statement-breakpoint
-- The context counts of the events stored before this migration, summed as ingest would have.
INSERT INTO `context_minute` (start, server, client, requested, applied, reason, requests)
SELECT ts - ts % 60000, server, coalesce(client, ''), ctx_requested, coalesce(ctx_applied, ''), coalesce(ctx_reason, ''), count(*)
FROM events WHERE counted = 1 AND ctx_requested IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6;
