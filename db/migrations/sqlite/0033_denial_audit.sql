-- The audit of the decision store (denials that did not hold, DOMAIN.md section 5), kept by the fold
-- (db/counters/denials.ts). Its rule is the gate's (shared/analysis/denials.ts), not SQL: this builds the set of
-- identities with a counted refusal, each pending, and the fold audits the pending ones from their events.
CREATE TABLE `denial_breach` (
	`server` text NOT NULL,
	`identity` blob NOT NULL,
	`answer_id` text NOT NULL,
	`answer_ts` integer NOT NULL,
	`client` text NOT NULL,
	`rpc_method` text,
	`new_session` integer NOT NULL,
	`refusal` text NOT NULL,
	`answer` text NOT NULL,
	PRIMARY KEY(`server`, `identity`, `answer_id`)
);
--> statement-breakpoint
CREATE INDEX `denial_breach_ts_idx` ON `denial_breach` (`answer_ts`);--> statement-breakpoint
CREATE TABLE `denial_identity` (
	`server` text NOT NULL,
	`identity` blob NOT NULL,
	`pending` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`server`, `identity`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `denial_identity_pending_idx` ON `denial_identity` (`pending`) WHERE "denial_identity"."pending" = 1;--> statement-breakpoint
CREATE TABLE `denial_replay_hour` (
	`server` text NOT NULL,
	`identity` blob NOT NULL,
	`client` text NOT NULL,
	`start` integer NOT NULL,
	`replayed` integer NOT NULL,
	PRIMARY KEY(`server`, `identity`, `client`, `start`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `denial_replay_hour_start_idx` ON `denial_replay_hour` (`start`);--> statement-breakpoint
INSERT INTO `denial_identity` (server, identity, pending)
SELECT DISTINCT server, identity, 1 FROM `events` WHERE counted = 1 AND identity IS NOT NULL AND bucket = 'refusal';
