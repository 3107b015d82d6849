-- Counted failures per server and JSON-RPC method (issue 40): db/counters/families.ts METHOD_FAILURE_COUNTS keeps them at
-- each fold. Filled here from the stored events by the statements db/counters/family.ts rebuildStatement renders from
-- that declaration (tests/api/method-failures.test.ts holds them equal); the hours start from the events kept.
-- The code counts leave input requests (bucket pending) out, as their reads of the events always did: the fold
-- counted them until this release.
CREATE TABLE "method_failure_hour" (
	"start" bigint NOT NULL,
	"server" text NOT NULL,
	"method" text NOT NULL,
	"failures" integer NOT NULL,
	CONSTRAINT "method_failure_hour_server_start_method_pk" PRIMARY KEY("server","start","method")
);
--> statement-breakpoint
CREATE TABLE "method_failure_minute" (
	"start" bigint NOT NULL,
	"server" text NOT NULL,
	"method" text NOT NULL,
	"failures" integer NOT NULL,
	CONSTRAINT "method_failure_minute_server_start_method_pk" PRIMARY KEY("server","start","method")
);
--> statement-breakpoint
INSERT INTO "method_failure_hour" ("start", "server", "method", "failures") SELECT ts - ts % 3600000, server, coalesce(rpc_method, ''), sum(1) FROM events WHERE counted = 1 AND bucket IN ('refusal', 'transient', 'throttled', 'ambiguous') AND NOT EXISTS (SELECT 1 FROM fold_queue WHERE events.seq BETWEEN fold_queue.first_seq AND fold_queue.last_seq) GROUP BY 1, 2, 3;
--> statement-breakpoint
INSERT INTO "method_failure_minute" ("start", "server", "method", "failures") SELECT ts - ts % 60000, server, coalesce(rpc_method, ''), sum(1) FROM events WHERE counted = 1 AND bucket IN ('refusal', 'transient', 'throttled', 'ambiguous') AND NOT EXISTS (SELECT 1 FROM fold_queue WHERE events.seq BETWEEN fold_queue.first_seq AND fold_queue.last_seq) GROUP BY 1, 2, 3;
--> statement-breakpoint
DELETE FROM code_minute WHERE bucket = 'pending';
--> statement-breakpoint
DELETE FROM code_hour WHERE bucket = 'pending';
