CREATE TABLE `event_bodies` (
	`id` integer PRIMARY KEY NOT NULL,
	`data` blob NOT NULL
);
--> statement-breakpoint
-- Each line stored so far becomes a block of one, under its event's seq: db/body-codec.ts reads it as it is.
INSERT INTO `event_bodies` (`id`, `data`) SELECT `seq`, `body` FROM `events`;--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_events` (
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
	`wait_until` integer,
	`ctx_requested` text,
	`ctx_applied` text,
	`ctx_reason` text,
	`avoidable` integer DEFAULT 0 NOT NULL,
	`gate_reason` text,
	`body_block` integer NOT NULL,
	`body_line` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_events`("seq", "event_id", "ts", "source", "client", "server", "session", "protocol", "rpc_method", "http_method", "http_path", "http_status", "rpc_code", "latency_ms", "timeout", "discovery_read", "retry_after", "identity", "correlation", "counted", "bucket", "kind", "rule", "evidence", "wait_until", "ctx_requested", "ctx_applied", "ctx_reason", "avoidable", "gate_reason", "body_block", "body_line") SELECT "seq", "event_id", "ts", "source", "client", "server", "session", "protocol", "rpc_method", "http_method", "http_path", "http_status", "rpc_code", "latency_ms", "timeout", "discovery_read", "retry_after", "identity", "correlation", "counted", "bucket", "kind", "rule", "evidence", "wait_until", "ctx_requested", "ctx_applied", "ctx_reason", "avoidable", "gate_reason", "seq", 0 FROM `events`;--> statement-breakpoint
DROP TABLE `events`;--> statement-breakpoint
ALTER TABLE `__new_events` RENAME TO `events`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `events_event_id_uq` ON `events` (`event_id`);--> statement-breakpoint
CREATE INDEX `events_server_ts_idx` ON `events` (`server`,`ts`);--> statement-breakpoint
CREATE INDEX `events_client_ts_idx` ON `events` (`client`,`ts`);--> statement-breakpoint
CREATE INDEX `events_ts_idx` ON `events` (`ts`);--> statement-breakpoint
CREATE INDEX `events_identity_ts_idx` ON `events` (`identity`,`ts`) WHERE "events"."identity" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `events_proxy_correlation_idx` ON `events` (`correlation`) WHERE "events"."source" = 'proxy' AND "events"."correlation" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `events_client_correlation_idx` ON `events` (`correlation`) WHERE "events"."source" = 'client' AND "events"."correlation" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `events_failed_idx` ON `events` (`server`,`seq`) WHERE "events"."bucket" <> 'ok';