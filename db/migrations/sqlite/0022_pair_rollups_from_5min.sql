-- The family per (server, client) starts at 5 minutes: its minute level held about one row per event at 10M events a
-- day. The family per server takes the conduct counters, so that a server's conduct reads no client's rows; they are
-- summed from the pair family before its minutes go.
ALTER TABLE `rollup_server_minute` ADD `after_refusal` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_server_minute` ADD `past_transient_budget` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_server_minute` ADD `before_retry_after` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_server_minute` ADD `identical_after_ambiguous` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_server_minute` ADD `undiscovered` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_server_5min` ADD `after_refusal` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_server_5min` ADD `past_transient_budget` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_server_5min` ADD `before_retry_after` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_server_5min` ADD `identical_after_ambiguous` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_server_5min` ADD `undiscovered` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_server_hour` ADD `after_refusal` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_server_hour` ADD `past_transient_budget` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_server_hour` ADD `before_retry_after` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_server_hour` ADD `identical_after_ambiguous` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_server_hour` ADD `undiscovered` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `rollup_server_minute` SET after_refusal = p.after_refusal, past_transient_budget = p.past_transient_budget, before_retry_after = p.before_retry_after, identical_after_ambiguous = p.identical_after_ambiguous, undiscovered = p.undiscovered
FROM (SELECT start, server, bucket, kind, sum(after_refusal) AS after_refusal, sum(past_transient_budget) AS past_transient_budget, sum(before_retry_after) AS before_retry_after, sum(identical_after_ambiguous) AS identical_after_ambiguous, sum(undiscovered) AS undiscovered
  FROM `rollup_minute` WHERE client <> '' GROUP BY start, server, bucket, kind) AS p
WHERE rollup_server_minute.start = p.start AND rollup_server_minute.server = p.server AND rollup_server_minute.bucket = p.bucket AND rollup_server_minute.kind = p.kind;--> statement-breakpoint
UPDATE `rollup_server_5min` SET after_refusal = p.after_refusal, past_transient_budget = p.past_transient_budget, before_retry_after = p.before_retry_after, identical_after_ambiguous = p.identical_after_ambiguous, undiscovered = p.undiscovered
FROM (SELECT start, server, bucket, kind, sum(after_refusal) AS after_refusal, sum(past_transient_budget) AS past_transient_budget, sum(before_retry_after) AS before_retry_after, sum(identical_after_ambiguous) AS identical_after_ambiguous, sum(undiscovered) AS undiscovered
  FROM `rollup_5min` WHERE client <> '' GROUP BY start, server, bucket, kind) AS p
WHERE rollup_server_5min.start = p.start AND rollup_server_5min.server = p.server AND rollup_server_5min.bucket = p.bucket AND rollup_server_5min.kind = p.kind;--> statement-breakpoint
UPDATE `rollup_server_hour` SET after_refusal = p.after_refusal, past_transient_budget = p.past_transient_budget, before_retry_after = p.before_retry_after, identical_after_ambiguous = p.identical_after_ambiguous, undiscovered = p.undiscovered
FROM (SELECT start, server, bucket, kind, sum(after_refusal) AS after_refusal, sum(past_transient_budget) AS past_transient_budget, sum(before_retry_after) AS before_retry_after, sum(identical_after_ambiguous) AS identical_after_ambiguous, sum(undiscovered) AS undiscovered
  FROM `rollup_hour` WHERE client <> '' GROUP BY start, server, bucket, kind) AS p
WHERE rollup_server_hour.start = p.start AND rollup_server_hour.server = p.server AND rollup_server_hour.bucket = p.bucket AND rollup_server_hour.kind = p.kind;--> statement-breakpoint
DROP TABLE `rollup_minute`;
