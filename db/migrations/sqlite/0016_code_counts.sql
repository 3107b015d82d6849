CREATE TABLE `code_hour` (
	`server` text NOT NULL,
	`start` integer NOT NULL,
	`bucket` text NOT NULL,
	`kind` text NOT NULL,
	`rpc_code` text NOT NULL,
	`http_status` text NOT NULL,
	`requests` integer NOT NULL,
	PRIMARY KEY(`server`, `start`, `bucket`, `kind`, `rpc_code`, `http_status`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `code_minute` (
	`server` text NOT NULL,
	`start` integer NOT NULL,
	`bucket` text NOT NULL,
	`kind` text NOT NULL,
	`rpc_code` text NOT NULL,
	`http_status` text NOT NULL,
	`requests` integer NOT NULL,
	PRIMARY KEY(`server`, `start`, `bucket`, `kind`, `rpc_code`, `http_status`)
) WITHOUT ROWID;
--> statement-breakpoint
-- The counts of the events already stored, as ingest would have kept them.
INSERT INTO `code_minute` (server, start, bucket, kind, rpc_code, http_status, requests)
SELECT server, ts - ts % 60000, bucket, kind, coalesce(CAST(rpc_code AS text), ''), coalesce(CAST(http_status AS text), ''),
  count(*)
FROM `events` WHERE counted = 1 AND bucket <> 'ok' GROUP BY 1, 2, 3, 4, 5, 6;
--> statement-breakpoint
INSERT INTO `code_hour` (server, start, bucket, kind, rpc_code, http_status, requests)
SELECT server, start - start % 3600000, bucket, kind, rpc_code, http_status, sum(requests)
FROM `code_minute` GROUP BY 1, 2, 3, 4, 5, 6;
