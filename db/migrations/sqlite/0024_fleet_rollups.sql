-- The whole federation's counts, without server or client: its charts read ~25x fewer rows (ADR 4).
CREATE TABLE `rollup_fleet_5min` (
	`start` integer NOT NULL,
	`bucket` text NOT NULL,
	`kind` text NOT NULL,
	`requests` integer NOT NULL,
	`avoidable` integer NOT NULL,
	PRIMARY KEY(`start`, `bucket`, `kind`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `rollup_fleet_hour` (
	`start` integer NOT NULL,
	`bucket` text NOT NULL,
	`kind` text NOT NULL,
	`requests` integer NOT NULL,
	`avoidable` integer NOT NULL,
	PRIMARY KEY(`start`, `bucket`, `kind`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `rollup_fleet_minute` (
	`start` integer NOT NULL,
	`bucket` text NOT NULL,
	`kind` text NOT NULL,
	`requests` integer NOT NULL,
	`avoidable` integer NOT NULL,
	PRIMARY KEY(`start`, `bucket`, `kind`)
) WITHOUT ROWID;
--> statement-breakpoint
-- The counts of the events already stored: the family per server, summed over its servers.
INSERT INTO `rollup_fleet_minute` (start, bucket, kind, requests, avoidable)
SELECT start, bucket, kind, sum(requests), sum(avoidable) FROM `rollup_server_minute` GROUP BY start, bucket, kind;--> statement-breakpoint
INSERT INTO `rollup_fleet_5min` (start, bucket, kind, requests, avoidable)
SELECT start, bucket, kind, sum(requests), sum(avoidable) FROM `rollup_server_5min` GROUP BY start, bucket, kind;--> statement-breakpoint
INSERT INTO `rollup_fleet_hour` (start, bucket, kind, requests, avoidable)
SELECT start, bucket, kind, sum(requests), sum(avoidable) FROM `rollup_server_hour` GROUP BY start, bucket, kind;
