-- All-time totals, counted in apart from withdrawn by corrections, never deleted by retention: GET /metrics reads
-- them as Prometheus counters, which must only grow (db/schema/totals.ts).
CREATE TABLE `total_avoidable` (
	`server` text NOT NULL,
	`client` text NOT NULL,
	`avoidable_counted` integer NOT NULL,
	`avoidable_withdrawn` integer NOT NULL,
	PRIMARY KEY(`server`, `client`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `total_requests` (
	`server` text NOT NULL,
	`bucket` text NOT NULL,
	`kind` text NOT NULL,
	`requests_counted` integer NOT NULL,
	`requests_withdrawn` integer NOT NULL,
	PRIMARY KEY(`server`, `bucket`, `kind`)
) WITHOUT ROWID;
--> statement-breakpoint
-- The counts kept so far (hours past --retain-counts are gone), as counted in: nothing was withdrawn yet.
INSERT INTO `total_requests` (server, bucket, kind, requests_counted, requests_withdrawn)
SELECT server, bucket, kind, CASE WHEN sum(requests) > 0 THEN sum(requests) ELSE 0 END, CASE WHEN sum(requests) < 0 THEN -sum(requests) ELSE 0 END
FROM `rollup_server_hour` GROUP BY server, bucket, kind HAVING sum(requests) <> 0;--> statement-breakpoint
INSERT INTO `total_avoidable` (server, client, avoidable_counted, avoidable_withdrawn)
SELECT server, client, CASE WHEN sum(avoidable) > 0 THEN sum(avoidable) ELSE 0 END, CASE WHEN sum(avoidable) < 0 THEN -sum(avoidable) ELSE 0 END
FROM `rollup_avoidable_hour` GROUP BY server, client HAVING sum(avoidable) <> 0;
