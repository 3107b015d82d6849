CREATE TABLE `events` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` text NOT NULL,
	`ts` integer NOT NULL,
	`source` text NOT NULL,
	`client` text,
	`server` text NOT NULL,
	`session` text,
	`protocol` text NOT NULL,
	`rpc_method` text,
	`http_method` text,
	`http_path` text,
	`http_status` integer,
	`rpc_code` integer,
	`latency_ms` real,
	`timeout` integer NOT NULL,
	`discovery_read` integer,
	`retry_after` real,
	`identity` text,
	`correlation` text,
	`counted` integer NOT NULL,
	`bucket` text NOT NULL,
	`kind` text NOT NULL,
	`rule` text NOT NULL,
	`evidence` text NOT NULL,
	`body` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `events_event_id_uq` ON `events` (`event_id`);--> statement-breakpoint
CREATE INDEX `events_server_ts_idx` ON `events` (`server`,`ts`);--> statement-breakpoint
CREATE INDEX `events_client_ts_idx` ON `events` (`client`,`ts`);--> statement-breakpoint
CREATE INDEX `events_ts_idx` ON `events` (`ts`);--> statement-breakpoint
CREATE INDEX `events_proxy_correlation_idx` ON `events` (`correlation`) WHERE "events"."source" = 'proxy' AND "events"."correlation" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `events_client_correlation_idx` ON `events` (`correlation`) WHERE "events"."source" = 'client' AND "events"."correlation" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `events_failed_idx` ON `events` (`server`,`seq`) WHERE "events"."bucket" <> 'ok';--> statement-breakpoint
CREATE TABLE `servers` (
	`name` text PRIMARY KEY NOT NULL,
	`discovery` text,
	`discovery_raw` text,
	`overrides` text NOT NULL,
	`updated_at` integer NOT NULL
);
