CREATE TABLE `identity_hour` (
	`start` integer NOT NULL,
	`identity` text NOT NULL,
	`sends` integer NOT NULL,
	PRIMARY KEY(`start`, `identity`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `identity_hour_sends_idx` ON `identity_hour` (`start`,`sends`) WHERE "identity_hour"."sends" > 1;--> statement-breakpoint
-- The counts of the events already stored, as ingest would have kept them.
INSERT INTO `identity_hour` (start, identity, sends)
SELECT ts - ts % 3600000, identity, count(*) FROM `events` WHERE counted = 1 AND identity IS NOT NULL GROUP BY 1, 2;