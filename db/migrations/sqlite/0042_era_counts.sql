-- Requests per era, per server and per client alone, and MCP 2026-07-28's input requests among them (issue 36,
-- DOMAIN.md section 10): db/counters/eras.ts keeps them at each fold. Filled here from the stored events as a fold
-- would have counted them: counted, and not still queued (their fold counts them). Events stored before migration
-- storms_by_sender get their era from their lines at start (api/services/request-facts.ts), which moves their counts
-- from no era to it; the hours start from the minutes, as far back as events are kept.
CREATE TABLE `era_client_hour` (
	`client` text NOT NULL,
	`start` integer NOT NULL,
	`era` text NOT NULL,
	`requests` integer NOT NULL,
	`legacy` integer NOT NULL,
	`pending` integer NOT NULL,
	`continuations` integer NOT NULL,
	`calls` integer NOT NULL,
	`rounds` integer NOT NULL,
	PRIMARY KEY(`start`, `client`, `era`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `era_client_minute` (
	`client` text NOT NULL,
	`start` integer NOT NULL,
	`era` text NOT NULL,
	`requests` integer NOT NULL,
	`legacy` integer NOT NULL,
	`pending` integer NOT NULL,
	`continuations` integer NOT NULL,
	`calls` integer NOT NULL,
	`rounds` integer NOT NULL,
	PRIMARY KEY(`start`, `client`, `era`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `era_server_hour` (
	`server` text NOT NULL,
	`start` integer NOT NULL,
	`era` text NOT NULL,
	`requests` integer NOT NULL,
	`legacy` integer NOT NULL,
	`pending` integer NOT NULL,
	`continuations` integer NOT NULL,
	`calls` integer NOT NULL,
	`rounds` integer NOT NULL,
	PRIMARY KEY(`server`, `start`, `era`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `era_server_minute` (
	`server` text NOT NULL,
	`start` integer NOT NULL,
	`era` text NOT NULL,
	`requests` integer NOT NULL,
	`legacy` integer NOT NULL,
	`pending` integer NOT NULL,
	`continuations` integer NOT NULL,
	`calls` integer NOT NULL,
	`rounds` integer NOT NULL,
	PRIMARY KEY(`server`, `start`, `era`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO era_server_minute (server, start, era, requests, legacy, pending, continuations, calls, rounds)
SELECT server, ts - ts % 60000, coalesce(era, ''), count(*), sum(CASE WHEN kind = 'era_legacy' THEN 1 ELSE 0 END),
  sum(CASE WHEN bucket = 'pending' THEN 1 ELSE 0 END), sum(CASE WHEN continuation = 1 THEN 1 ELSE 0 END),
  sum(CASE WHEN bucket = 'pending' AND continuation = 0 THEN 1 ELSE 0 END),
  sum(CASE WHEN (bucket = 'pending' AND continuation = 0) OR (continuation = 1 AND kind <> 'invalid_request_state')
    THEN 1 ELSE 0 END)
FROM events WHERE counted = 1
  AND NOT EXISTS (SELECT 1 FROM fold_queue WHERE events.seq BETWEEN fold_queue.first_seq AND fold_queue.last_seq)
GROUP BY 1, 2, 3;
--> statement-breakpoint
INSERT INTO era_client_minute (client, start, era, requests, legacy, pending, continuations, calls, rounds)
SELECT CASE WHEN rpc_method IN ('sampling/createMessage', 'elicitation/create', 'roots/list') THEN ''
  ELSE coalesce(client, '') END, ts - ts % 60000, coalesce(era, ''),
  count(*), sum(CASE WHEN kind = 'era_legacy' THEN 1 ELSE 0 END),
  sum(CASE WHEN bucket = 'pending' THEN 1 ELSE 0 END), sum(CASE WHEN continuation = 1 THEN 1 ELSE 0 END),
  sum(CASE WHEN bucket = 'pending' AND continuation = 0 THEN 1 ELSE 0 END),
  sum(CASE WHEN (bucket = 'pending' AND continuation = 0) OR (continuation = 1 AND kind <> 'invalid_request_state')
    THEN 1 ELSE 0 END)
FROM events WHERE counted = 1
  AND NOT EXISTS (SELECT 1 FROM fold_queue WHERE events.seq BETWEEN fold_queue.first_seq AND fold_queue.last_seq)
GROUP BY 1, 2, 3;
--> statement-breakpoint
INSERT INTO era_server_hour (server, start, era, requests, legacy, pending, continuations, calls, rounds)
SELECT server, start - start % 3600000, era, sum(requests), sum(legacy), sum(pending), sum(continuations), sum(calls),
  sum(rounds) FROM era_server_minute GROUP BY 1, 2, 3;
--> statement-breakpoint
INSERT INTO era_client_hour (client, start, era, requests, legacy, pending, continuations, calls, rounds)
SELECT client, start - start % 3600000, era, sum(requests), sum(legacy), sum(pending), sum(continuations), sum(calls),
  sum(rounds) FROM era_client_minute GROUP BY 1, 2, 3;
