CREATE TABLE `rollup_client_5min` (
	`start` integer NOT NULL,
	`client` text NOT NULL,
	`bucket` text NOT NULL,
	`kind` text NOT NULL,
	`requests` integer NOT NULL,
	`avoidable` integer NOT NULL,
	PRIMARY KEY(`start`, `client`, `bucket`, `kind`)
);
--> statement-breakpoint
CREATE TABLE `rollup_client_hour` (
	`start` integer NOT NULL,
	`client` text NOT NULL,
	`bucket` text NOT NULL,
	`kind` text NOT NULL,
	`requests` integer NOT NULL,
	`avoidable` integer NOT NULL,
	PRIMARY KEY(`start`, `client`, `bucket`, `kind`)
);
--> statement-breakpoint
CREATE TABLE `rollup_client_minute` (
	`start` integer NOT NULL,
	`client` text NOT NULL,
	`bucket` text NOT NULL,
	`kind` text NOT NULL,
	`requests` integer NOT NULL,
	`avoidable` integer NOT NULL,
	PRIMARY KEY(`start`, `client`, `bucket`, `kind`)
);--> statement-breakpoint
-- The rows already kept per (server, client), summed over servers as ingest would have kept them.
INSERT INTO `rollup_client_minute` (start, client, bucket, kind, requests, avoidable)
SELECT start, client, bucket, kind, sum(requests), sum(avoidable) FROM `rollup_minute` GROUP BY 1, 2, 3, 4;--> statement-breakpoint
INSERT INTO `rollup_client_5min` (start, client, bucket, kind, requests, avoidable)
SELECT start, client, bucket, kind, sum(requests), sum(avoidable) FROM `rollup_5min` GROUP BY 1, 2, 3, 4;--> statement-breakpoint
INSERT INTO `rollup_client_hour` (start, client, bucket, kind, requests, avoidable)
SELECT start, client, bucket, kind, sum(requests), sum(avoidable) FROM `rollup_hour` GROUP BY 1, 2, 3, 4;