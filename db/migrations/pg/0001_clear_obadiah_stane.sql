CREATE TABLE "gate_partitions" (
	"partition" text PRIMARY KEY NOT NULL,
	"state" text NOT NULL,
	"frontier_ts" bigint NOT NULL,
	"frontier_id" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rollup_hour" (
	"start" bigint NOT NULL,
	"server" text NOT NULL,
	"client" text NOT NULL,
	"bucket" text NOT NULL,
	"kind" text NOT NULL,
	"requests" integer NOT NULL,
	"avoidable" integer NOT NULL,
	CONSTRAINT "rollup_hour_start_server_client_bucket_kind_pk" PRIMARY KEY("start","server","client","bucket","kind")
);
--> statement-breakpoint
CREATE TABLE "rollup_minute" (
	"start" bigint NOT NULL,
	"server" text NOT NULL,
	"client" text NOT NULL,
	"bucket" text NOT NULL,
	"kind" text NOT NULL,
	"requests" integer NOT NULL,
	"avoidable" integer NOT NULL,
	CONSTRAINT "rollup_minute_start_server_client_bucket_kind_pk" PRIMARY KEY("start","server","client","bucket","kind")
);
--> statement-breakpoint
CREATE TABLE "rollup_server_5min" (
	"start" bigint NOT NULL,
	"server" text NOT NULL,
	"bucket" text NOT NULL,
	"kind" text NOT NULL,
	"requests" integer NOT NULL,
	"avoidable" integer NOT NULL,
	CONSTRAINT "rollup_server_5min_start_server_bucket_kind_pk" PRIMARY KEY("start","server","bucket","kind")
);
--> statement-breakpoint
CREATE TABLE "rollup_server_hour" (
	"start" bigint NOT NULL,
	"server" text NOT NULL,
	"bucket" text NOT NULL,
	"kind" text NOT NULL,
	"requests" integer NOT NULL,
	"avoidable" integer NOT NULL,
	CONSTRAINT "rollup_server_hour_start_server_bucket_kind_pk" PRIMARY KEY("start","server","bucket","kind")
);
--> statement-breakpoint
CREATE TABLE "rollup_server_minute" (
	"start" bigint NOT NULL,
	"server" text NOT NULL,
	"bucket" text NOT NULL,
	"kind" text NOT NULL,
	"requests" integer NOT NULL,
	"avoidable" integer NOT NULL,
	CONSTRAINT "rollup_server_minute_start_server_bucket_kind_pk" PRIMARY KEY("start","server","bucket","kind")
);
--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "request_key" text;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "wait_until" bigint;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "ctx_requested" text;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "ctx_applied" text;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "ctx_reason" text;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "avoidable" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "gate_reason" text;--> statement-breakpoint
CREATE INDEX "rollup_hour_server_idx" ON "rollup_hour" USING btree ("server","start");--> statement-breakpoint
CREATE INDEX "rollup_minute_server_idx" ON "rollup_minute" USING btree ("server","start");