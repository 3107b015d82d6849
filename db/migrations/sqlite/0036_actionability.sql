-- Actionability profiles per failure (issue 18, ADR 13): the events' act_profile and their counts per minute and hour.
-- SQL cannot read a stored line (deflated in event_bodies), so the profiles of events stored before this migration
-- are read from their lines by api/services/actionability-backfill.ts, once, at start; a store with no events has
-- nothing to read and is marked done here.
CREATE TABLE `actionability_hour` (
	`server` text NOT NULL,
	`start` integer NOT NULL,
	`profile` integer NOT NULL,
	`failures` integer NOT NULL,
	PRIMARY KEY(`server`, `start`, `profile`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `actionability_minute` (
	`server` text NOT NULL,
	`start` integer NOT NULL,
	`profile` integer NOT NULL,
	`failures` integer NOT NULL,
	PRIMARY KEY(`server`, `start`, `profile`)
) WITHOUT ROWID;
--> statement-breakpoint
ALTER TABLE `events` ADD `act_profile` integer;
--> statement-breakpoint
INSERT INTO settings (key, value) SELECT 'actionability_v1', 'new store' WHERE NOT EXISTS (SELECT 1 FROM events);
