-- Cold events in column blocks (ADR 21): a server's events of a clock hour past the hot window, packed in place of
-- their rows, indexes and line blocks (api/services/compaction.ts).
CREATE TABLE `cold_blocks` (
	`server` text NOT NULL,
	`hour` integer NOT NULL,
	`first_seq` integer NOT NULL,
	`first_ts` integer NOT NULL,
	`last_ts` integer NOT NULL,
	`rows` integer NOT NULL,
	`data` blob NOT NULL,
	PRIMARY KEY(`server`, `hour`, `first_seq`)
);
--> statement-breakpoint
CREATE INDEX `cold_blocks_hour_idx` ON `cold_blocks` (`hour`);