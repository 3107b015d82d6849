-- A storm's key takes its server, (id, server), as on PostgreSQL, where a store distributed by server keeps each
-- storm on its server's node (ADR 14). SQLite changes a key by rebuilding the table; no row changes.
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_storms` (
	`id` text NOT NULL,
	`client` text NOT NULL,
	`server` text NOT NULL,
	`kind` text NOT NULL,
	`key` text,
	`paths` text NOT NULL,
	`attempts` integer NOT NULL,
	`avoidable` integer NOT NULL,
	`first_ts` integer NOT NULL,
	`last_ts` integer NOT NULL,
	`first_bucket` text NOT NULL,
	`first_kind` text NOT NULL,
	PRIMARY KEY(`id`, `server`)
);
--> statement-breakpoint
INSERT INTO `__new_storms`("id", "client", "server", "kind", "key", "paths", "attempts", "avoidable", "first_ts", "last_ts", "first_bucket", "first_kind") SELECT "id", "client", "server", "kind", "key", "paths", "attempts", "avoidable", "first_ts", "last_ts", "first_bucket", "first_kind" FROM `storms`;--> statement-breakpoint
DROP TABLE `storms`;--> statement-breakpoint
ALTER TABLE `__new_storms` RENAME TO `storms`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `storms_window_idx` ON `storms` (`last_ts`,`first_ts`,`avoidable`,`id`,`kind`,`attempts`);--> statement-breakpoint
CREATE INDEX `storms_server_window_idx` ON `storms` (`server`,`last_ts`,`first_ts`,`avoidable`,`id`,`kind`,`attempts`);--> statement-breakpoint
CREATE INDEX `storms_client_server_idx` ON `storms` (`client`,`server`);