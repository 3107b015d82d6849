CREATE TABLE "context_server_5min" (
	"start" bigint NOT NULL,
	"server" text NOT NULL,
	"requested" text NOT NULL,
	"applied" text NOT NULL,
	"reason" text NOT NULL,
	"requests" integer NOT NULL,
	CONSTRAINT "context_server_5min_start_server_requested_applied_reason_pk" PRIMARY KEY("start","server","requested","applied","reason")
);
--> statement-breakpoint
CREATE TABLE "context_server_hour" (
	"start" bigint NOT NULL,
	"server" text NOT NULL,
	"requested" text NOT NULL,
	"applied" text NOT NULL,
	"reason" text NOT NULL,
	"requests" integer NOT NULL,
	CONSTRAINT "context_server_hour_start_server_requested_applied_reason_pk" PRIMARY KEY("start","server","requested","applied","reason")
);
--> statement-breakpoint
-- The counts of the requests already stored, as ingest would have kept them.
INSERT INTO "context_server_5min" (start, server, requested, applied, reason, requests)
SELECT start - start % 300000, server, requested, applied, reason, sum(requests)
FROM "context_minute" GROUP BY 1, 2, 3, 4, 5;
--> statement-breakpoint
INSERT INTO "context_server_hour" (start, server, requested, applied, reason, requests)
SELECT start - start % 3600000, server, requested, applied, reason, sum(requests)
FROM "context_server_5min" GROUP BY 1, 2, 3, 4, 5;
