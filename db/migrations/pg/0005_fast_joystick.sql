-- Rows stored before bodies were compressed keep their line as UTF-8 bytes: db/body-codec.ts reads both.
ALTER TABLE "events" ALTER COLUMN "body" SET DATA TYPE bytea USING convert_to("body", 'UTF8');--> statement-breakpoint
ALTER TABLE "events" DROP COLUMN "request_key";
