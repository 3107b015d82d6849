DROP INDEX "storms_server_last_ts_idx";--> statement-breakpoint
CREATE INDEX "storms_server_window_idx" ON "storms" USING btree ("server","last_ts","first_ts","avoidable","id","kind","attempts");