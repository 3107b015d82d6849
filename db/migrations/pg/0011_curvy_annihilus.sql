CREATE TABLE "identity_hour" (
	"start" bigint NOT NULL,
	"identity" text NOT NULL,
	"sends" integer NOT NULL,
	CONSTRAINT "identity_hour_start_identity_pk" PRIMARY KEY("start","identity")
);
--> statement-breakpoint
CREATE INDEX "identity_hour_sends_idx" ON "identity_hour" USING btree ("start","sends") WHERE "identity_hour"."sends" > 1;--> statement-breakpoint
-- The counts of the events already stored, as ingest would have kept them.
INSERT INTO "identity_hour" (start, identity, sends)
SELECT ts - ts % 3600000, identity, count(*) FROM "events" WHERE counted = 1 AND identity IS NOT NULL GROUP BY 1, 2;