-- Open retry runs move out of gate_keys into their own table, which keeps only runs that can still grow: nearly
-- every key that ever failed carried a finished run of ~170 bytes. WITHOUT ROWID: drizzle cannot say it.
CREATE TABLE `gate_runs` (
	`partition` text NOT NULL,
	`key` text NOT NULL,
	`last_ts` integer NOT NULL,
	`run` text NOT NULL,
	PRIMARY KEY(`partition`, `key`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `gate_runs_partition_last_ts_idx` ON `gate_runs` (`partition`,`last_ts`);--> statement-breakpoint
-- A run its partition has moved past by more than the loop gap (STORM_DEFAULTS.loopGapMs, 60 s) is over.
INSERT INTO `gate_runs` (partition, key, last_ts, run)
SELECT k.partition, k.key, json_extract(k.run, '$.lastTs'), k.run
FROM `gate_keys` k JOIN `gate_partitions` p ON p.partition = k.partition
WHERE k.run IS NOT NULL AND json_extract(k.run, '$.lastTs') >= p.frontier_ts - 60000;--> statement-breakpoint
-- Rebuilt rather than altered: dropping the column in place would leave its pages mostly empty (at 10M events,
-- 42 bytes per event on disk holding 9), while a new table packs them and frees the old pages for reuse.
CREATE TABLE `gate_keys_new` (
	`partition` text NOT NULL,
	`key` text NOT NULL,
	`state` text NOT NULL,
	PRIMARY KEY(`partition`, `key`)
) WITHOUT ROWID;--> statement-breakpoint
INSERT INTO `gate_keys_new` SELECT partition, key, state FROM `gate_keys` WHERE state <> '';--> statement-breakpoint
DROP TABLE `gate_keys`;--> statement-breakpoint
ALTER TABLE `gate_keys_new` RENAME TO `gate_keys`;
