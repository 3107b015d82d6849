CREATE TABLE "events" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"event_id" text NOT NULL,
	"ts" bigint NOT NULL,
	"source" text NOT NULL,
	"client" text,
	"server" text NOT NULL,
	"session" text,
	"protocol" text NOT NULL,
	"rpc_method" text,
	"http_method" text,
	"http_path" text,
	"http_status" integer,
	"rpc_code" integer,
	"latency_ms" double precision,
	"timeout" smallint NOT NULL,
	"discovery_read" smallint,
	"retry_after" double precision,
	"identity" text,
	"correlation" text,
	"counted" smallint NOT NULL,
	"bucket" text NOT NULL,
	"kind" text NOT NULL,
	"rule" text NOT NULL,
	"evidence" text NOT NULL,
	"body" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "servers" (
	"name" text PRIMARY KEY NOT NULL,
	"discovery" text,
	"discovery_raw" text,
	"overrides" text NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "events_event_id_uq" ON "events" USING btree ("event_id");--> statement-breakpoint
CREATE INDEX "events_server_ts_idx" ON "events" USING btree ("server","ts");--> statement-breakpoint
CREATE INDEX "events_client_ts_idx" ON "events" USING btree ("client","ts");--> statement-breakpoint
CREATE INDEX "events_ts_idx" ON "events" USING btree ("ts");--> statement-breakpoint
CREATE INDEX "events_proxy_correlation_idx" ON "events" USING btree ("correlation") WHERE "events"."source" = 'proxy' AND "events"."correlation" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "events_client_correlation_idx" ON "events" USING btree ("correlation") WHERE "events"."source" = 'client' AND "events"."correlation" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "events_failed_idx" ON "events" USING btree ("server","seq") WHERE "events"."bucket" <> 'ok';