ALTER TABLE "events" ADD COLUMN "source_format" text;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "frames" smallint;