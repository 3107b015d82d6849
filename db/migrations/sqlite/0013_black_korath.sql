DROP INDEX `events_identity_ts_idx`;--> statement-breakpoint
CREATE INDEX `events_identity_ts_idx` ON `events` (`identity`,`ts`) WHERE "events"."identity" IS NOT NULL AND "events"."counted" = 1;