-- Request identities stored as their 128-bit digest (ADR 11): the events' identity `server:` + 32 hex becomes the
-- 16 bytes of the hex, the server being the row's own; identity_hour takes the server into its key beside the digest
-- (the same digest is common across servers). Every stored identity has that form (shared/identity.ts), so the last
-- 32 characters are the digest and what precedes the last 33 the server (which may itself hold ':').
DROP INDEX "events_identity_ts_idx";--> statement-breakpoint
ALTER TABLE "events" ALTER COLUMN "identity" SET DATA TYPE bytea USING decode(right("identity", 32), 'hex');--> statement-breakpoint
CREATE INDEX "events_identity_server_ts_idx" ON "events" USING btree ("identity","server","ts") WHERE "events"."identity" IS NOT NULL AND "events"."counted" = 1;--> statement-breakpoint
ALTER TABLE "identity_hour" DROP CONSTRAINT "identity_hour_start_identity_pk";--> statement-breakpoint
ALTER TABLE "identity_hour" ADD COLUMN "server" text;--> statement-breakpoint
UPDATE "identity_hour" SET "server" = left("identity", -33);--> statement-breakpoint
ALTER TABLE "identity_hour" ALTER COLUMN "identity" SET DATA TYPE bytea USING decode(right("identity", 32), 'hex'),
  ALTER COLUMN "server" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "identity_hour" ADD CONSTRAINT "identity_hour_start_server_identity_pk" PRIMARY KEY("start","server","identity");
