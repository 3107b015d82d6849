-- Request identities stored as their 128-bit digest (ADR 11): the events' identity `server:` + 32 hex becomes the
-- 16 bytes of the hex, the server being the row's own; identity_hour takes the server into its key beside the digest
-- (the same digest is common across servers). Every stored identity has that form (shared/identity.ts), so the last
-- 32 characters are the digest and what precedes the last 33 the server (which may itself hold ':').
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
	`identity` blob,
	`correlation` text,
	`request_id` text,
	`partner` text,
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
	`blocked_by` text,
	`body_block` integer NOT NULL,
	`body_line` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_events`("seq", "event_id", "ts", "source", "client", "server", "session", "protocol", "rpc_method", "http_method", "http_path", "http_status", "rpc_code", "latency_ms", "timeout", "discovery_read", "retry_after", "identity", "correlation", "request_id", "partner", "counted", "bucket", "kind", "rule", "evidence", "wait_until", "ctx_requested", "ctx_applied", "ctx_reason", "avoidable", "gate_reason", "blocked_by", "body_block", "body_line") SELECT "seq", "event_id", "ts", "source", "client", "server", "session", "protocol", "rpc_method", "http_method", "http_path", "http_status", "rpc_code", "latency_ms", "timeout", "discovery_read", "retry_after", unhex(substr("identity", -32)), "correlation", "request_id", "partner", "counted", "bucket", "kind", "rule", "evidence", "wait_until", "ctx_requested", "ctx_applied", "ctx_reason", "avoidable", "gate_reason", "blocked_by", "body_block", "body_line" FROM `events`;--> statement-breakpoint
-- seq goes on where it was: it orders arrival, and a store whose events retention took must not number anew.
DELETE FROM sqlite_sequence WHERE name = '__new_events';--> statement-breakpoint
INSERT INTO sqlite_sequence (name, seq) SELECT '__new_events', seq FROM sqlite_sequence WHERE name = 'events';--> statement-breakpoint
DROP TABLE `events`;--> statement-breakpoint
ALTER TABLE `__new_events` RENAME TO `events`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `events_event_id_uq` ON `events` (`event_id`);--> statement-breakpoint
CREATE INDEX `events_server_ts_idx` ON `events` (`server`,`ts`);--> statement-breakpoint
CREATE INDEX `events_client_ts_server_idx` ON `events` (`client`,`ts`,`server`);--> statement-breakpoint
CREATE INDEX `events_ts_idx` ON `events` (`ts`);--> statement-breakpoint
CREATE INDEX `events_identity_server_ts_idx` ON `events` (`identity`,`server`,`ts`) WHERE "events"."identity" IS NOT NULL AND "events"."counted" = 1;--> statement-breakpoint
CREATE INDEX `events_proxy_correlation_idx` ON `events` (`correlation`) WHERE "events"."source" = 'proxy' AND "events"."correlation" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `events_client_correlation_idx` ON `events` (`correlation`) WHERE "events"."source" = 'client' AND "events"."correlation" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `events_request_id_idx` ON `events` (`request_id`) WHERE "events"."request_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `events_proxy_unjoined_idx` ON `events` (`server`,`ts`) WHERE "events"."source" = 'proxy' AND "events"."partner" IS NULL AND "events"."counted" = 1;--> statement-breakpoint
CREATE INDEX `events_failed_idx` ON `events` (`server`,`seq`) WHERE "events"."bucket" <> 'ok';--> statement-breakpoint
CREATE TABLE `__new_identity_hour` (
	`start` integer NOT NULL,
	`server` text NOT NULL,
	`identity` blob NOT NULL,
	`sends` integer NOT NULL,
	`sends_00` integer DEFAULT 0 NOT NULL,
	`sends_10` integer DEFAULT 0 NOT NULL,
	`sends_20` integer DEFAULT 0 NOT NULL,
	`sends_30` integer DEFAULT 0 NOT NULL,
	`sends_40` integer DEFAULT 0 NOT NULL,
	`sends_50` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`start`, `server`, `identity`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_identity_hour`("start", "server", "identity", "sends", "sends_00", "sends_10", "sends_20", "sends_30", "sends_40", "sends_50") SELECT "start", substr("identity", 1, length("identity") - 33), unhex(substr("identity", -32)), "sends", "sends_00", "sends_10", "sends_20", "sends_30", "sends_40", "sends_50" FROM `identity_hour`;--> statement-breakpoint
DROP TABLE `identity_hour`;--> statement-breakpoint
ALTER TABLE `__new_identity_hour` RENAME TO `identity_hour`;--> statement-breakpoint
CREATE INDEX `identity_hour_sends_idx` ON `identity_hour` (`start`,`sends`) WHERE "identity_hour"."sends" > 1;