ALTER TABLE "rollup_hour" ADD COLUMN "after_refusal" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "rollup_hour" ADD COLUMN "past_transient_budget" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "rollup_hour" ADD COLUMN "before_retry_after" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "rollup_hour" ADD COLUMN "identical_after_ambiguous" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "rollup_hour" ADD COLUMN "undiscovered" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "rollup_minute" ADD COLUMN "after_refusal" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "rollup_minute" ADD COLUMN "past_transient_budget" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "rollup_minute" ADD COLUMN "before_retry_after" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "rollup_minute" ADD COLUMN "identical_after_ambiguous" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "rollup_minute" ADD COLUMN "undiscovered" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
-- Conduct counters for the events stored before this migration, summed as ingest would have.
UPDATE "rollup_minute" SET "after_refusal" = agg.after_refusal, "past_transient_budget" = agg.past_transient_budget, "before_retry_after" = agg.before_retry_after, "identical_after_ambiguous" = agg.identical_after_ambiguous, "undiscovered" = agg.undiscovered FROM (
  SELECT ts - ts % 60000 AS start, server, coalesce(client, '') AS client, bucket, kind,
    sum(CASE WHEN gate_reason = 'after_refusal' THEN 1 ELSE 0 END) AS after_refusal,
    sum(CASE WHEN gate_reason = 'past_transient_budget' THEN 1 ELSE 0 END) AS past_transient_budget,
    sum(CASE WHEN gate_reason = 'before_retry_after' THEN 1 ELSE 0 END) AS before_retry_after,
    sum(CASE WHEN gate_reason = 'identical_after_ambiguous' THEN 1 ELSE 0 END) AS identical_after_ambiguous,
    sum(CASE WHEN discovery_read = 0 THEN 1 ELSE 0 END) AS undiscovered
  FROM events WHERE counted = 1 GROUP BY 1, 2, 3, 4, 5
) AS agg WHERE rollup_minute.start = agg.start AND rollup_minute.server = agg.server AND rollup_minute.client = agg.client AND rollup_minute.bucket = agg.bucket AND rollup_minute.kind = agg.kind;
--> statement-breakpoint
-- Conduct counters for the events stored before this migration, summed as ingest would have.
UPDATE "rollup_hour" SET "after_refusal" = agg.after_refusal, "past_transient_budget" = agg.past_transient_budget, "before_retry_after" = agg.before_retry_after, "identical_after_ambiguous" = agg.identical_after_ambiguous, "undiscovered" = agg.undiscovered FROM (
  SELECT ts - ts % 3600000 AS start, server, coalesce(client, '') AS client, bucket, kind,
    sum(CASE WHEN gate_reason = 'after_refusal' THEN 1 ELSE 0 END) AS after_refusal,
    sum(CASE WHEN gate_reason = 'past_transient_budget' THEN 1 ELSE 0 END) AS past_transient_budget,
    sum(CASE WHEN gate_reason = 'before_retry_after' THEN 1 ELSE 0 END) AS before_retry_after,
    sum(CASE WHEN gate_reason = 'identical_after_ambiguous' THEN 1 ELSE 0 END) AS identical_after_ambiguous,
    sum(CASE WHEN discovery_read = 0 THEN 1 ELSE 0 END) AS undiscovered
  FROM events WHERE counted = 1 GROUP BY 1, 2, 3, 4, 5
) AS agg WHERE rollup_hour.start = agg.start AND rollup_hour.server = agg.server AND rollup_hour.client = agg.client AND rollup_hour.bucket = agg.bucket AND rollup_hour.kind = agg.kind;
