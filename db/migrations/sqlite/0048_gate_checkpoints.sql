CREATE TABLE `gate_checkpoint_keys` (
	`partition` text NOT NULL,
	`key` text NOT NULL,
	`state` text NOT NULL,
	PRIMARY KEY(`partition`, `key`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `gate_checkpoints` (
	`partition` text PRIMARY KEY NOT NULL,
	`frontier_ts` integer NOT NULL,
	`frontier_id` text NOT NULL,
	`wait_until` integer,
	`storms` text NOT NULL,
	`final_storms` text NOT NULL
);
