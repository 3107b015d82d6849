CREATE TABLE "storms" (
	"id" text PRIMARY KEY NOT NULL,
	"client" text NOT NULL,
	"server" text NOT NULL,
	"kind" text NOT NULL,
	"key" text,
	"paths" text NOT NULL,
	"attempts" integer NOT NULL,
	"avoidable" integer NOT NULL,
	"first_ts" bigint NOT NULL,
	"last_ts" bigint NOT NULL,
	"first_bucket" text NOT NULL,
	"first_kind" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "gate_keys" ADD COLUMN "run" text;--> statement-breakpoint
ALTER TABLE "gate_partitions" ADD COLUMN "storms" text;--> statement-breakpoint
CREATE INDEX "storms_last_ts_idx" ON "storms" USING btree ("last_ts");--> statement-breakpoint
CREATE INDEX "storms_server_last_ts_idx" ON "storms" USING btree ("server","last_ts");--> statement-breakpoint
CREATE INDEX "storms_client_server_idx" ON "storms" USING btree ("client","server");--> statement-breakpoint
-- A store with no events yet has no storms to build; one with events builds them once at start (buildMissingStorms).
INSERT INTO "settings" (key, value) SELECT 'storms_built', 'new store' WHERE NOT EXISTS (SELECT 1 FROM "events");
