ALTER TABLE "events" ADD COLUMN "request_id" text;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "partner" text;--> statement-breakpoint
CREATE INDEX "events_request_id_idx" ON "events" USING btree ("request_id") WHERE "events"."request_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "events_proxy_unjoined_idx" ON "events" USING btree ("server","ts") WHERE "events"."source" = 'proxy' AND "events"."partner" IS NULL AND "events"."counted" = 1;