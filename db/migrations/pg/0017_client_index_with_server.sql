DROP INDEX "events_client_ts_idx";--> statement-breakpoint
CREATE INDEX "events_client_ts_server_idx" ON "events" USING btree ("client","ts","server");