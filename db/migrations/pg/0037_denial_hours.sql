-- The denial audit's counts per hour, server and client (issue 18, ADR 15): GET /denials over a day at 10M events
-- counted the day's denial_breach and denial_replay_hour rows (p50 426 ms); it now reads these, and the window's edge
-- hours from denial_breach's time index, which gains the server and client for that. Filled here from the audit's
-- rows; from now on the audit keeps it beside them (db/counters/denials.ts). denial_breach's key gains the answer's
-- time: logs reuse event ids, and two answers of one id at different times collided in one upsert (PostgreSQL
-- refused the fold's statement; SQLite kept one of the two).
CREATE TABLE "denial_hour" (
	"start" bigint NOT NULL,
	"server" text NOT NULL,
	"client" text NOT NULL,
	"breaches" integer NOT NULL,
	"replayed" integer NOT NULL,
	CONSTRAINT "denial_hour_start_server_client_pk" PRIMARY KEY("start","server","client")
);
--> statement-breakpoint
DROP INDEX "denial_breach_ts_idx";--> statement-breakpoint
ALTER TABLE "denial_breach" DROP CONSTRAINT "denial_breach_server_identity_answer_id_pk";--> statement-breakpoint
ALTER TABLE "denial_breach" ADD CONSTRAINT "denial_breach_server_identity_answer_ts_answer_id_pk" PRIMARY KEY("server","identity","answer_ts","answer_id");--> statement-breakpoint
CREATE INDEX "denial_breach_ts_idx" ON "denial_breach" USING btree ("answer_ts","server","client");
--> statement-breakpoint
INSERT INTO denial_hour (start, server, client, breaches, replayed)
SELECT start, server, client, sum(breaches), sum(replayed) FROM (
  SELECT answer_ts - answer_ts % 3600000 AS start, server, client, 1 AS breaches, 0 AS replayed FROM denial_breach
  UNION ALL SELECT start, server, client, 0 AS breaches, replayed FROM denial_replay_hour
) AS parts GROUP BY start, server, client;
