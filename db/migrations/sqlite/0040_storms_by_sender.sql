-- Storms as DOMAIN.md section 6 now defines them: three kinds tried in order for each avoidable attempt (probe
-- storm, reconnect loop, retry loop), each attempt in at most one storm, listed from 3 attempts with 1 avoidable, and
-- filed under their sender (a server's own requests are its storms). Every stored storm is found again from the
-- events: the rows are emptied, every partition's tracker state (the open runs moved from gate_runs into it) is
-- dropped so the next batch replays the partition, and storms_built is reset so that the server rebuilds the
-- partitions no batch touches (api/services/gate-maintenance.ts buildMissingStorms; a store without events has
-- nothing to build). The events gain what MCP 2026-07-28 requests say of themselves (section 10): what a method names
-- (rpc_name, a storm's title names the tool), the era, the protocol version and whether a round continues its call;
-- api/services/request-facts.ts reads them from the stored lines at start.
DELETE FROM `storms`;--> statement-breakpoint
UPDATE `gate_partitions` SET `storms` = NULL;--> statement-breakpoint
DELETE FROM `settings` WHERE `key` = 'storms_built' AND EXISTS (SELECT 1 FROM `events`);--> statement-breakpoint
INSERT INTO `settings` (`key`, `value`) SELECT 'request_facts_v1', 'new store' WHERE NOT EXISTS (SELECT 1 FROM `events`);--> statement-breakpoint
DROP TABLE `gate_runs`;--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_storms` (
	`id` text NOT NULL,
	`client` text NOT NULL,
	`server` text NOT NULL,
	`sent_by` text NOT NULL,
	`kind` text NOT NULL,
	`key` text NOT NULL,
	`paths` text NOT NULL,
	`attempts` integer NOT NULL,
	`avoidable` integer NOT NULL,
	`first_ts` integer NOT NULL,
	`last_ts` integer NOT NULL,
	`first_bucket` text NOT NULL,
	`first_kind` text NOT NULL,
	`title` text NOT NULL,
	PRIMARY KEY(`id`, `server`)
);
--> statement-breakpoint
DROP TABLE `storms`;--> statement-breakpoint
ALTER TABLE `__new_storms` RENAME TO `storms`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `storms_window_idx` ON `storms` (`last_ts`,`first_ts`,`avoidable`,`id`,`kind`,`attempts`);--> statement-breakpoint
CREATE INDEX `storms_server_window_idx` ON `storms` (`server`,`last_ts`,`first_ts`,`avoidable`,`id`,`kind`,`attempts`);--> statement-breakpoint
CREATE INDEX `storms_client_server_idx` ON `storms` (`client`,`server`);--> statement-breakpoint
ALTER TABLE `events` ADD `rpc_name` text;--> statement-breakpoint
ALTER TABLE `events` ADD `era` text;--> statement-breakpoint
ALTER TABLE `events` ADD `protocol_version` text;--> statement-breakpoint
ALTER TABLE `events` ADD `continuation` integer DEFAULT 0 NOT NULL;