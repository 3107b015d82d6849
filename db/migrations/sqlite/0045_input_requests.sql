-- MCP 2026-07-28's input requests (issue 36, DOMAIN.md section 10): what a server asked inside a counted round's
-- input_required answer, one row each, sends of their identity (db/counters/identities.ts) and the server's conduct.
-- The fold writes them; the rounds folded before are read from their lines at start (api/services/input-requests.ts),
-- which a store without such a round needs not.
CREATE TABLE `input_requests` (
	`event_id` text NOT NULL,
	`ts` integer NOT NULL,
	`server` text NOT NULL,
	`input_key` text NOT NULL,
	`client` text,
	`method` text NOT NULL,
	`identity` blob NOT NULL,
	PRIMARY KEY(`event_id`, `ts`, `server`, `input_key`)
);
--> statement-breakpoint
CREATE INDEX `input_requests_identity_idx` ON `input_requests` (`identity`,`server`,`ts`);--> statement-breakpoint
CREATE INDEX `input_requests_server_ts_idx` ON `input_requests` (`server`,`ts`);--> statement-breakpoint
CREATE INDEX `input_requests_client_ts_idx` ON `input_requests` (`client`,`ts`) WHERE "input_requests"."client" IS NOT NULL;--> statement-breakpoint
INSERT INTO `settings` (`key`, `value`) SELECT 'input_requests_v1', 'new store' WHERE NOT EXISTS (SELECT 1 FROM `events` WHERE `bucket` = 'pending');
