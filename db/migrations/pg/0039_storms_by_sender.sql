-- Storms as DOMAIN.md section 6 now defines them: three kinds tried in order for each avoidable attempt (probe
-- storm, reconnect loop, retry loop), each attempt in at most one storm, listed from 3 attempts with 1 avoidable, and
-- filed under their sender (a server's own requests are its storms). Every stored storm is found again from the
-- events: the rows are emptied, every partition's tracker state (the open runs moved from gate_runs into it) is
-- dropped so the next batch replays the partition, and storms_built is reset so that the server rebuilds the
-- partitions no batch touches (api/services/gate-maintenance.ts buildMissingStorms; a store without events has
-- nothing to build). The events gain what MCP 2026-07-28 requests say of themselves (section 10): what a method names
-- (rpc_name, a storm's title names the tool), the era, the protocol version and whether a round continues its call;
-- api/services/request-facts.ts reads them from the stored lines at start.
DELETE FROM "storms";--> statement-breakpoint
UPDATE "gate_partitions" SET "storms" = NULL;--> statement-breakpoint
DELETE FROM "settings" WHERE "key" = 'storms_built' AND EXISTS (SELECT 1 FROM "events");--> statement-breakpoint
INSERT INTO "settings" ("key", "value") SELECT 'request_facts_v1', 'new store' WHERE NOT EXISTS (SELECT 1 FROM "events");--> statement-breakpoint
DROP TABLE "gate_runs" CASCADE;--> statement-breakpoint
ALTER TABLE "storms" ALTER COLUMN "key" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "rpc_name" text;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "era" text;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "protocol_version" text;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "continuation" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "storms" ADD COLUMN "sent_by" text NOT NULL;--> statement-breakpoint
ALTER TABLE "storms" ADD COLUMN "title" text NOT NULL;