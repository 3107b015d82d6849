-- Events in day partitions (ADR 9): retention drops a day's partition instead of deleting its rows. `events` becomes
-- a table partitioned by range of `ts`, a partition a UTC day (`events_pYYYYMMDD`), and `event_bodies` one
-- partitioned by range of `id`, whose blocks a day numbers from day * 2^32 (db/event-days.ts), a partition per day
-- beside it (`event_bodies_pYYYYMMDD`), so that a dropped day takes its lines with it. Every unique key of a
-- partitioned table holds its partition key: the dedupe key becomes (event_id, ts, server) (the server for ADR 14),
-- and the primary key on seq gives way to a plain index (a bigserial is unique by its sequence). A block written
-- before spanned days at times: each day its events fall in gets a copy under that day's id.
-- Later days are made as they come (db/queries/partitions.ts).
ALTER TABLE "events" RENAME TO "events_unpartitioned";--> statement-breakpoint
ALTER TABLE "event_bodies" RENAME TO "event_bodies_unpartitioned";--> statement-breakpoint
ALTER SEQUENCE "events_seq_seq" OWNED BY NONE;--> statement-breakpoint
ALTER SEQUENCE "event_bodies_id_seq" OWNED BY NONE;--> statement-breakpoint
CREATE TABLE "events" (LIKE "events_unpartitioned" INCLUDING DEFAULTS) PARTITION BY RANGE ("ts");--> statement-breakpoint
CREATE TABLE "event_bodies" (LIKE "event_bodies_unpartitioned" INCLUDING DEFAULTS) PARTITION BY RANGE ("id");--> statement-breakpoint
ALTER SEQUENCE "events_seq_seq" OWNED BY "events"."seq";--> statement-breakpoint
ALTER SEQUENCE "event_bodies_id_seq" OWNED BY "event_bodies"."id";--> statement-breakpoint
DO $$
DECLARE
  day bigint;
  stamp text;
BEGIN
  FOR day IN SELECT DISTINCT floor("ts" / 86400000.0)::bigint FROM "events_unpartitioned" LOOP
    stamp := to_char(to_timestamp(day * 86400) AT TIME ZONE 'UTC', 'YYYYMMDD');
    EXECUTE format('CREATE TABLE %I PARTITION OF "events" FOR VALUES FROM (%s) TO (%s)',
      'events_p' || stamp, day * 86400000, (day + 1) * 86400000);
    EXECUTE format('CREATE TABLE %I PARTITION OF "event_bodies" FOR VALUES FROM (%s) TO (%s)',
      'event_bodies_p' || stamp, day * 4294967296, (day + 1) * 4294967296);
  END LOOP;
END $$;--> statement-breakpoint
INSERT INTO "event_bodies" ("id", "data")
  SELECT days."day" * 4294967296 + blocks."id" % 4294967296, blocks."data"
  FROM "event_bodies_unpartitioned" AS blocks
  JOIN (SELECT DISTINCT "body_block", floor("ts" / 86400000.0)::bigint AS "day" FROM "events_unpartitioned") AS days
    ON days."body_block" = blocks."id";--> statement-breakpoint
INSERT INTO "events" ("seq", "event_id", "ts", "source", "client", "server", "session", "protocol", "rpc_method",
    "http_method", "http_path", "http_status", "rpc_code", "latency_ms", "timeout", "discovery_read", "retry_after",
    "identity", "correlation", "counted", "bucket", "kind", "rule", "evidence", "wait_until", "ctx_requested",
    "ctx_applied", "ctx_reason", "avoidable", "gate_reason", "body_block", "body_line", "blocked_by", "request_id",
    "partner")
  SELECT "seq", "event_id", "ts", "source", "client", "server", "session", "protocol", "rpc_method",
    "http_method", "http_path", "http_status", "rpc_code", "latency_ms", "timeout", "discovery_read", "retry_after",
    "identity", "correlation", "counted", "bucket", "kind", "rule", "evidence", "wait_until", "ctx_requested",
    "ctx_applied", "ctx_reason", "avoidable", "gate_reason",
    floor("ts" / 86400000.0)::bigint * 4294967296 + "body_block" % 4294967296, "body_line", "blocked_by", "request_id", "partner"
  FROM "events_unpartitioned";--> statement-breakpoint
DROP TABLE "events_unpartitioned";--> statement-breakpoint
DROP TABLE "event_bodies_unpartitioned";--> statement-breakpoint
ALTER TABLE "event_bodies" ADD CONSTRAINT "event_bodies_pkey" PRIMARY KEY ("id");--> statement-breakpoint
CREATE INDEX "events_seq_idx" ON "events" USING btree ("seq");--> statement-breakpoint
CREATE UNIQUE INDEX "events_event_id_uq" ON "events" USING btree ("event_id","ts","server");--> statement-breakpoint
CREATE INDEX "events_server_ts_idx" ON "events" USING btree ("server","ts");--> statement-breakpoint
CREATE INDEX "events_client_ts_server_idx" ON "events" USING btree ("client","ts","server");--> statement-breakpoint
CREATE INDEX "events_ts_idx" ON "events" USING btree ("ts");--> statement-breakpoint
CREATE INDEX "events_identity_server_ts_idx" ON "events" USING btree ("identity","server","ts") WHERE "events"."identity" IS NOT NULL AND "events"."counted" = 1;--> statement-breakpoint
CREATE INDEX "events_proxy_correlation_idx" ON "events" USING btree ("correlation") WHERE "events"."source" = 'proxy' AND "events"."correlation" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "events_client_correlation_idx" ON "events" USING btree ("correlation") WHERE "events"."source" = 'client' AND "events"."correlation" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "events_request_id_idx" ON "events" USING btree ("request_id") WHERE "events"."request_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "events_proxy_unjoined_idx" ON "events" USING btree ("server","ts") WHERE "events"."source" = 'proxy' AND "events"."partner" IS NULL AND "events"."counted" = 1;--> statement-breakpoint
CREATE INDEX "events_failed_idx" ON "events" USING btree ("server","seq") WHERE "events"."bucket" <> 'ok';
