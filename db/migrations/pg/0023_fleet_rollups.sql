-- The whole federation's counts, without server or client: its charts read ~25x fewer rows (ADR 4).
CREATE TABLE "rollup_fleet_5min" (
	"start" bigint NOT NULL,
	"bucket" text NOT NULL,
	"kind" text NOT NULL,
	"requests" integer NOT NULL,
	"avoidable" integer NOT NULL,
	CONSTRAINT "rollup_fleet_5min_start_bucket_kind_pk" PRIMARY KEY("start","bucket","kind")
);
--> statement-breakpoint
CREATE TABLE "rollup_fleet_hour" (
	"start" bigint NOT NULL,
	"bucket" text NOT NULL,
	"kind" text NOT NULL,
	"requests" integer NOT NULL,
	"avoidable" integer NOT NULL,
	CONSTRAINT "rollup_fleet_hour_start_bucket_kind_pk" PRIMARY KEY("start","bucket","kind")
);
--> statement-breakpoint
CREATE TABLE "rollup_fleet_minute" (
	"start" bigint NOT NULL,
	"bucket" text NOT NULL,
	"kind" text NOT NULL,
	"requests" integer NOT NULL,
	"avoidable" integer NOT NULL,
	CONSTRAINT "rollup_fleet_minute_start_bucket_kind_pk" PRIMARY KEY("start","bucket","kind")
);
--> statement-breakpoint
-- The counts of the events already stored: the family per server, summed over its servers.
INSERT INTO "rollup_fleet_minute" (start, bucket, kind, requests, avoidable)
SELECT start, bucket, kind, sum(requests), sum(avoidable) FROM "rollup_server_minute" GROUP BY start, bucket, kind;--> statement-breakpoint
INSERT INTO "rollup_fleet_5min" (start, bucket, kind, requests, avoidable)
SELECT start, bucket, kind, sum(requests), sum(avoidable) FROM "rollup_server_5min" GROUP BY start, bucket, kind;--> statement-breakpoint
INSERT INTO "rollup_fleet_hour" (start, bucket, kind, requests, avoidable)
SELECT start, bucket, kind, sum(requests), sum(avoidable) FROM "rollup_server_hour" GROUP BY start, bucket, kind;
