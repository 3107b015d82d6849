CREATE TABLE `context_server_5min` (
	`start` integer NOT NULL,
	`server` text NOT NULL,
	`requested` text NOT NULL,
	`applied` text NOT NULL,
	`reason` text NOT NULL,
	`requests` integer NOT NULL,
	PRIMARY KEY(`start`, `server`, `requested`, `applied`, `reason`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `context_server_hour` (
	`start` integer NOT NULL,
	`server` text NOT NULL,
	`requested` text NOT NULL,
	`applied` text NOT NULL,
	`reason` text NOT NULL,
	`requests` integer NOT NULL,
	PRIMARY KEY(`start`, `server`, `requested`, `applied`, `reason`)
) WITHOUT ROWID;
--> statement-breakpoint
-- The counts of the requests already stored, as ingest would have kept them.
INSERT INTO `context_server_5min` (start, server, requested, applied, reason, requests)
SELECT start - start % 300000, server, requested, applied, reason, sum(requests)
FROM `context_minute` GROUP BY 1, 2, 3, 4, 5;
--> statement-breakpoint
INSERT INTO `context_server_hour` (start, server, requested, applied, reason, requests)
SELECT start - start % 3600000, server, requested, applied, reason, sum(requests)
FROM `context_server_5min` GROUP BY 1, 2, 3, 4, 5;
