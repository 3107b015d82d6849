CREATE TABLE "rollup_avoidable_5min" (
	"start" bigint NOT NULL,
	"server" text NOT NULL,
	"client" text NOT NULL,
	"avoidable" integer NOT NULL,
	CONSTRAINT "rollup_avoidable_5min_start_server_client_pk" PRIMARY KEY("start","server","client")
);
--> statement-breakpoint
CREATE TABLE "rollup_avoidable_hour" (
	"start" bigint NOT NULL,
	"server" text NOT NULL,
	"client" text NOT NULL,
	"avoidable" integer NOT NULL,
	CONSTRAINT "rollup_avoidable_hour_start_server_client_pk" PRIMARY KEY("start","server","client")
);
--> statement-breakpoint
CREATE TABLE "rollup_avoidable_minute" (
	"start" bigint NOT NULL,
	"server" text NOT NULL,
	"client" text NOT NULL,
	"avoidable" integer NOT NULL,
	CONSTRAINT "rollup_avoidable_minute_start_server_client_pk" PRIMARY KEY("start","server","client")
);
--> statement-breakpoint
CREATE TABLE "rollup_client_5min" (
	"start" bigint NOT NULL,
	"client" text NOT NULL,
	"bucket" text NOT NULL,
	"kind" text NOT NULL,
	"requests" integer NOT NULL,
	"avoidable" integer NOT NULL,
	"after_refusal" integer DEFAULT 0 NOT NULL,
	"past_transient_budget" integer DEFAULT 0 NOT NULL,
	"before_retry_after" integer DEFAULT 0 NOT NULL,
	"identical_after_ambiguous" integer DEFAULT 0 NOT NULL,
	"undiscovered" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "rollup_client_5min_start_client_bucket_kind_pk" PRIMARY KEY("start","client","bucket","kind")
);
--> statement-breakpoint
CREATE TABLE "rollup_client_hour" (
	"start" bigint NOT NULL,
	"client" text NOT NULL,
	"bucket" text NOT NULL,
	"kind" text NOT NULL,
	"requests" integer NOT NULL,
	"avoidable" integer NOT NULL,
	"after_refusal" integer DEFAULT 0 NOT NULL,
	"past_transient_budget" integer DEFAULT 0 NOT NULL,
	"before_retry_after" integer DEFAULT 0 NOT NULL,
	"identical_after_ambiguous" integer DEFAULT 0 NOT NULL,
	"undiscovered" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "rollup_client_hour_start_client_bucket_kind_pk" PRIMARY KEY("start","client","bucket","kind")
);
--> statement-breakpoint
CREATE TABLE "rollup_client_minute" (
	"start" bigint NOT NULL,
	"client" text NOT NULL,
	"bucket" text NOT NULL,
	"kind" text NOT NULL,
	"requests" integer NOT NULL,
	"avoidable" integer NOT NULL,
	"after_refusal" integer DEFAULT 0 NOT NULL,
	"past_transient_budget" integer DEFAULT 0 NOT NULL,
	"before_retry_after" integer DEFAULT 0 NOT NULL,
	"identical_after_ambiguous" integer DEFAULT 0 NOT NULL,
	"undiscovered" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "rollup_client_minute_start_client_bucket_kind_pk" PRIMARY KEY("start","client","bucket","kind")
);--> statement-breakpoint
-- The (server, client) rows already kept, summed over servers as ingest would have kept them.
INSERT INTO "rollup_client_minute" (start, client, bucket, kind, requests, avoidable, after_refusal, past_transient_budget, before_retry_after, identical_after_ambiguous, undiscovered)
SELECT start, client, bucket, kind, sum(requests), sum(avoidable), sum(after_refusal), sum(past_transient_budget), sum(before_retry_after), sum(identical_after_ambiguous), sum(undiscovered) FROM "rollup_minute" GROUP BY 1, 2, 3, 4;--> statement-breakpoint
-- The (server, client) rows already kept, summed over servers as ingest would have kept them.
INSERT INTO "rollup_client_5min" (start, client, bucket, kind, requests, avoidable, after_refusal, past_transient_budget, before_retry_after, identical_after_ambiguous, undiscovered)
SELECT start, client, bucket, kind, sum(requests), sum(avoidable), sum(after_refusal), sum(past_transient_budget), sum(before_retry_after), sum(identical_after_ambiguous), sum(undiscovered) FROM "rollup_5min" GROUP BY 1, 2, 3, 4;--> statement-breakpoint
-- The (server, client) rows already kept, summed over servers as ingest would have kept them.
INSERT INTO "rollup_client_hour" (start, client, bucket, kind, requests, avoidable, after_refusal, past_transient_budget, before_retry_after, identical_after_ambiguous, undiscovered)
SELECT start, client, bucket, kind, sum(requests), sum(avoidable), sum(after_refusal), sum(past_transient_budget), sum(before_retry_after), sum(identical_after_ambiguous), sum(undiscovered) FROM "rollup_hour" GROUP BY 1, 2, 3, 4;--> statement-breakpoint
-- Their avoidable requests per (server, client).
INSERT INTO "rollup_avoidable_minute" (start, server, client, avoidable)
SELECT start, server, client, sum(avoidable) FROM "rollup_minute" GROUP BY 1, 2, 3 HAVING sum(avoidable) <> 0;--> statement-breakpoint
-- Their avoidable requests per (server, client).
INSERT INTO "rollup_avoidable_5min" (start, server, client, avoidable)
SELECT start, server, client, sum(avoidable) FROM "rollup_5min" GROUP BY 1, 2, 3 HAVING sum(avoidable) <> 0;--> statement-breakpoint
-- Their avoidable requests per (server, client).
INSERT INTO "rollup_avoidable_hour" (start, server, client, avoidable)
SELECT start, server, client, sum(avoidable) FROM "rollup_hour" GROUP BY 1, 2, 3 HAVING sum(avoidable) <> 0;