CREATE TABLE `gate_keys` (
	`partition` text NOT NULL,
	`key` text NOT NULL,
	`state` text NOT NULL,
	PRIMARY KEY(`partition`, `key`)
);
--> statement-breakpoint
ALTER TABLE `gate_partitions` ADD `wait_until` integer;--> statement-breakpoint
-- Keys move to gate_keys under a digest SQL cannot compute: without a saved position, each partition is
-- replayed from its stored events on its next batch, which writes its keys again.
DELETE FROM `gate_partitions`;--> statement-breakpoint
ALTER TABLE `gate_partitions` DROP COLUMN `state`;