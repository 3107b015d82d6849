-- Keyed tables as WITHOUT ROWID: their primary key is the row, stored once. As rowid tables each kept a second
-- B-tree for the key (sqlite_autoindex_*), which held a copy of every key column, doubling their size on disk and
-- the B-trees every ingest upsert writes. Drizzle cannot declare WITHOUT ROWID, so each table is rebuilt here.
CREATE TABLE `context_minute_new` (
	`start` integer NOT NULL,
	`server` text NOT NULL,
	`client` text NOT NULL,
	`requested` text NOT NULL,
	`applied` text NOT NULL,
	`reason` text NOT NULL,
	`requests` integer NOT NULL,
	PRIMARY KEY(`start`, `server`, `client`, `requested`, `applied`, `reason`)
) WITHOUT ROWID;--> statement-breakpoint
INSERT INTO `context_minute_new` SELECT * FROM `context_minute`;--> statement-breakpoint
DROP TABLE `context_minute`;--> statement-breakpoint
ALTER TABLE `context_minute_new` RENAME TO `context_minute`;--> statement-breakpoint
CREATE TABLE `gate_keys_new` (
	`partition` text NOT NULL,
	`key` text NOT NULL,
	`state` text NOT NULL, `run` text,
	PRIMARY KEY(`partition`, `key`)
) WITHOUT ROWID;--> statement-breakpoint
INSERT INTO `gate_keys_new` SELECT * FROM `gate_keys`;--> statement-breakpoint
DROP TABLE `gate_keys`;--> statement-breakpoint
ALTER TABLE `gate_keys_new` RENAME TO `gate_keys`;--> statement-breakpoint
CREATE TABLE `rollup_5min_new` (
	`start` integer NOT NULL,
	`server` text NOT NULL,
	`client` text NOT NULL,
	`bucket` text NOT NULL,
	`kind` text NOT NULL,
	`requests` integer NOT NULL,
	`avoidable` integer NOT NULL,
	`after_refusal` integer DEFAULT 0 NOT NULL,
	`past_transient_budget` integer DEFAULT 0 NOT NULL,
	`before_retry_after` integer DEFAULT 0 NOT NULL,
	`identical_after_ambiguous` integer DEFAULT 0 NOT NULL,
	`undiscovered` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`start`, `server`, `client`, `bucket`, `kind`)
) WITHOUT ROWID;--> statement-breakpoint
INSERT INTO `rollup_5min_new` SELECT * FROM `rollup_5min`;--> statement-breakpoint
DROP TABLE `rollup_5min`;--> statement-breakpoint
ALTER TABLE `rollup_5min_new` RENAME TO `rollup_5min`;--> statement-breakpoint
CREATE INDEX `rollup_5min_server_idx` ON `rollup_5min` (`server`,`start`);--> statement-breakpoint
CREATE TABLE `rollup_avoidable_5min_new` (
	`start` integer NOT NULL,
	`server` text NOT NULL,
	`client` text NOT NULL,
	`avoidable` integer NOT NULL,
	PRIMARY KEY(`start`, `server`, `client`)
) WITHOUT ROWID;--> statement-breakpoint
INSERT INTO `rollup_avoidable_5min_new` SELECT * FROM `rollup_avoidable_5min`;--> statement-breakpoint
DROP TABLE `rollup_avoidable_5min`;--> statement-breakpoint
ALTER TABLE `rollup_avoidable_5min_new` RENAME TO `rollup_avoidable_5min`;--> statement-breakpoint
CREATE TABLE `rollup_avoidable_hour_new` (
	`start` integer NOT NULL,
	`server` text NOT NULL,
	`client` text NOT NULL,
	`avoidable` integer NOT NULL,
	PRIMARY KEY(`start`, `server`, `client`)
) WITHOUT ROWID;--> statement-breakpoint
INSERT INTO `rollup_avoidable_hour_new` SELECT * FROM `rollup_avoidable_hour`;--> statement-breakpoint
DROP TABLE `rollup_avoidable_hour`;--> statement-breakpoint
ALTER TABLE `rollup_avoidable_hour_new` RENAME TO `rollup_avoidable_hour`;--> statement-breakpoint
CREATE TABLE `rollup_avoidable_minute_new` (
	`start` integer NOT NULL,
	`server` text NOT NULL,
	`client` text NOT NULL,
	`avoidable` integer NOT NULL,
	PRIMARY KEY(`start`, `server`, `client`)
) WITHOUT ROWID;--> statement-breakpoint
INSERT INTO `rollup_avoidable_minute_new` SELECT * FROM `rollup_avoidable_minute`;--> statement-breakpoint
DROP TABLE `rollup_avoidable_minute`;--> statement-breakpoint
ALTER TABLE `rollup_avoidable_minute_new` RENAME TO `rollup_avoidable_minute`;--> statement-breakpoint
CREATE TABLE `rollup_client_5min_new` (
	`start` integer NOT NULL,
	`client` text NOT NULL,
	`bucket` text NOT NULL,
	`kind` text NOT NULL,
	`requests` integer NOT NULL,
	`avoidable` integer NOT NULL,
	`after_refusal` integer DEFAULT 0 NOT NULL,
	`past_transient_budget` integer DEFAULT 0 NOT NULL,
	`before_retry_after` integer DEFAULT 0 NOT NULL,
	`identical_after_ambiguous` integer DEFAULT 0 NOT NULL,
	`undiscovered` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`start`, `client`, `bucket`, `kind`)
) WITHOUT ROWID;--> statement-breakpoint
INSERT INTO `rollup_client_5min_new` SELECT * FROM `rollup_client_5min`;--> statement-breakpoint
DROP TABLE `rollup_client_5min`;--> statement-breakpoint
ALTER TABLE `rollup_client_5min_new` RENAME TO `rollup_client_5min`;--> statement-breakpoint
CREATE TABLE `rollup_client_hour_new` (
	`start` integer NOT NULL,
	`client` text NOT NULL,
	`bucket` text NOT NULL,
	`kind` text NOT NULL,
	`requests` integer NOT NULL,
	`avoidable` integer NOT NULL,
	`after_refusal` integer DEFAULT 0 NOT NULL,
	`past_transient_budget` integer DEFAULT 0 NOT NULL,
	`before_retry_after` integer DEFAULT 0 NOT NULL,
	`identical_after_ambiguous` integer DEFAULT 0 NOT NULL,
	`undiscovered` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`start`, `client`, `bucket`, `kind`)
) WITHOUT ROWID;--> statement-breakpoint
INSERT INTO `rollup_client_hour_new` SELECT * FROM `rollup_client_hour`;--> statement-breakpoint
DROP TABLE `rollup_client_hour`;--> statement-breakpoint
ALTER TABLE `rollup_client_hour_new` RENAME TO `rollup_client_hour`;--> statement-breakpoint
CREATE TABLE `rollup_client_minute_new` (
	`start` integer NOT NULL,
	`client` text NOT NULL,
	`bucket` text NOT NULL,
	`kind` text NOT NULL,
	`requests` integer NOT NULL,
	`avoidable` integer NOT NULL,
	`after_refusal` integer DEFAULT 0 NOT NULL,
	`past_transient_budget` integer DEFAULT 0 NOT NULL,
	`before_retry_after` integer DEFAULT 0 NOT NULL,
	`identical_after_ambiguous` integer DEFAULT 0 NOT NULL,
	`undiscovered` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`start`, `client`, `bucket`, `kind`)
) WITHOUT ROWID;--> statement-breakpoint
INSERT INTO `rollup_client_minute_new` SELECT * FROM `rollup_client_minute`;--> statement-breakpoint
DROP TABLE `rollup_client_minute`;--> statement-breakpoint
ALTER TABLE `rollup_client_minute_new` RENAME TO `rollup_client_minute`;--> statement-breakpoint
CREATE TABLE `rollup_hour_new` (
	`start` integer NOT NULL,
	`server` text NOT NULL,
	`client` text NOT NULL,
	`bucket` text NOT NULL,
	`kind` text NOT NULL,
	`requests` integer NOT NULL,
	`avoidable` integer NOT NULL, `after_refusal` integer DEFAULT 0 NOT NULL, `past_transient_budget` integer DEFAULT 0 NOT NULL, `before_retry_after` integer DEFAULT 0 NOT NULL, `identical_after_ambiguous` integer DEFAULT 0 NOT NULL, `undiscovered` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`start`, `server`, `client`, `bucket`, `kind`)
) WITHOUT ROWID;--> statement-breakpoint
INSERT INTO `rollup_hour_new` SELECT * FROM `rollup_hour`;--> statement-breakpoint
DROP TABLE `rollup_hour`;--> statement-breakpoint
ALTER TABLE `rollup_hour_new` RENAME TO `rollup_hour`;--> statement-breakpoint
CREATE INDEX `rollup_hour_server_idx` ON `rollup_hour` (`server`,`start`);--> statement-breakpoint
CREATE TABLE `rollup_minute_new` (
	`start` integer NOT NULL,
	`server` text NOT NULL,
	`client` text NOT NULL,
	`bucket` text NOT NULL,
	`kind` text NOT NULL,
	`requests` integer NOT NULL,
	`avoidable` integer NOT NULL, `after_refusal` integer DEFAULT 0 NOT NULL, `past_transient_budget` integer DEFAULT 0 NOT NULL, `before_retry_after` integer DEFAULT 0 NOT NULL, `identical_after_ambiguous` integer DEFAULT 0 NOT NULL, `undiscovered` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`start`, `server`, `client`, `bucket`, `kind`)
) WITHOUT ROWID;--> statement-breakpoint
INSERT INTO `rollup_minute_new` SELECT * FROM `rollup_minute`;--> statement-breakpoint
DROP TABLE `rollup_minute`;--> statement-breakpoint
ALTER TABLE `rollup_minute_new` RENAME TO `rollup_minute`;--> statement-breakpoint
CREATE INDEX `rollup_minute_server_idx` ON `rollup_minute` (`server`,`start`);--> statement-breakpoint
CREATE TABLE `rollup_server_5min_new` (
	`start` integer NOT NULL,
	`server` text NOT NULL,
	`bucket` text NOT NULL,
	`kind` text NOT NULL,
	`requests` integer NOT NULL,
	`avoidable` integer NOT NULL,
	PRIMARY KEY(`start`, `server`, `bucket`, `kind`)
) WITHOUT ROWID;--> statement-breakpoint
INSERT INTO `rollup_server_5min_new` SELECT * FROM `rollup_server_5min`;--> statement-breakpoint
DROP TABLE `rollup_server_5min`;--> statement-breakpoint
ALTER TABLE `rollup_server_5min_new` RENAME TO `rollup_server_5min`;--> statement-breakpoint
CREATE TABLE `rollup_server_hour_new` (
	`start` integer NOT NULL,
	`server` text NOT NULL,
	`bucket` text NOT NULL,
	`kind` text NOT NULL,
	`requests` integer NOT NULL,
	`avoidable` integer NOT NULL,
	PRIMARY KEY(`start`, `server`, `bucket`, `kind`)
) WITHOUT ROWID;--> statement-breakpoint
INSERT INTO `rollup_server_hour_new` SELECT * FROM `rollup_server_hour`;--> statement-breakpoint
DROP TABLE `rollup_server_hour`;--> statement-breakpoint
ALTER TABLE `rollup_server_hour_new` RENAME TO `rollup_server_hour`;--> statement-breakpoint
CREATE TABLE `rollup_server_minute_new` (
	`start` integer NOT NULL,
	`server` text NOT NULL,
	`bucket` text NOT NULL,
	`kind` text NOT NULL,
	`requests` integer NOT NULL,
	`avoidable` integer NOT NULL,
	PRIMARY KEY(`start`, `server`, `bucket`, `kind`)
) WITHOUT ROWID;--> statement-breakpoint
INSERT INTO `rollup_server_minute_new` SELECT * FROM `rollup_server_minute`;--> statement-breakpoint
DROP TABLE `rollup_server_minute`;--> statement-breakpoint
ALTER TABLE `rollup_server_minute_new` RENAME TO `rollup_server_minute`;
