CREATE TABLE "event_bodies" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"data" bytea NOT NULL
);
--> statement-breakpoint
-- Each line stored so far becomes a block of one, under its event's seq: db/body-codec.ts reads it as it is.
INSERT INTO "event_bodies" ("id", "data") SELECT "seq", "body" FROM "events";--> statement-breakpoint
SELECT setval(pg_get_serial_sequence('event_bodies', 'id'), (SELECT coalesce(max("id"), 0) + 1 FROM "event_bodies"), false);--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "body_block" bigint;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "body_line" smallint;--> statement-breakpoint
UPDATE "events" SET "body_block" = "seq", "body_line" = 0;--> statement-breakpoint
ALTER TABLE "events" ALTER COLUMN "body_block" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "events" ALTER COLUMN "body_line" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "events" DROP COLUMN "body";