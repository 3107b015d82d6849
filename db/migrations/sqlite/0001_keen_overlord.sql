CREATE TABLE `gate_partitions` (
	`partition` text PRIMARY KEY NOT NULL,
	`state` text NOT NULL,
	`frontier_ts` integer NOT NULL,
	`frontier_id` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `rollup_hour` (
	`start` integer NOT NULL,
	`server` text NOT NULL,
	`client` text NOT NULL,
	`bucket` text NOT NULL,
	`kind` text NOT NULL,
	`requests` integer NOT NULL,
	`avoidable` integer NOT NULL,
	PRIMARY KEY(`start`, `server`, `client`, `bucket`, `kind`)
);
--> statement-breakpoint
CREATE INDEX `rollup_hour_server_idx` ON `rollup_hour` (`server`,`start`);--> statement-breakpoint
CREATE TABLE `rollup_minute` (
	`start` integer NOT NULL,
	`server` text NOT NULL,
	`client` text NOT NULL,
	`bucket` text NOT NULL,
	`kind` text NOT NULL,
	`requests` integer NOT NULL,
	`avoidable` integer NOT NULL,
	PRIMARY KEY(`start`, `server`, `client`, `bucket`, `kind`)
);
--> statement-breakpoint
CREATE INDEX `rollup_minute_server_idx` ON `rollup_minute` (`server`,`start`);--> statement-breakpoint
CREATE TABLE `rollup_server_5min` (
	`start` integer NOT NULL,
	`server` text NOT NULL,
	`bucket` text NOT NULL,
	`kind` text NOT NULL,
	`requests` integer NOT NULL,
	`avoidable` integer NOT NULL,
	PRIMARY KEY(`start`, `server`, `bucket`, `kind`)
);
--> statement-breakpoint
CREATE TABLE `rollup_server_hour` (
	`start` integer NOT NULL,
	`server` text NOT NULL,
	`bucket` text NOT NULL,
	`kind` text NOT NULL,
	`requests` integer NOT NULL,
	`avoidable` integer NOT NULL,
	PRIMARY KEY(`start`, `server`, `bucket`, `kind`)
);
--> statement-breakpoint
CREATE TABLE `rollup_server_minute` (
	`start` integer NOT NULL,
	`server` text NOT NULL,
	`bucket` text NOT NULL,
	`kind` text NOT NULL,
	`requests` integer NOT NULL,
	`avoidable` integer NOT NULL,
	PRIMARY KEY(`start`, `server`, `bucket`, `kind`)
);
--> statement-breakpoint
ALTER TABLE `events` ADD `request_key` text;--> statement-breakpoint
ALTER TABLE `events` ADD `wait_until` integer;--> statement-breakpoint
ALTER TABLE `events` ADD `ctx_requested` text;--> statement-breakpoint
ALTER TABLE `events` ADD `ctx_applied` text;--> statement-breakpoint
ALTER TABLE `events` ADD `ctx_reason` text;--> statement-breakpoint
ALTER TABLE `events` ADD `avoidable` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `events` ADD `gate_reason` text;