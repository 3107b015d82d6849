-- The identity ranking's lists read each hour's re-sent identities from the partial index on (start, sends) (ADR 7).
-- PostgreSQL fetched each list row's tuple for its server and digest: ~1,450 buffers an hour, a day's ranking 147 ms
-- of its statement's 208 (docs/adr/0022-reads-at-scale.md). The same index carrying them reads index-only. SQLite's
-- table is WITHOUT ROWID, its index holds the key already. Same name and key: the declaration (db/schema) is unchanged,
-- as drizzle declares no INCLUDE.
DROP INDEX "identity_hour_sends_idx";--> statement-breakpoint
CREATE INDEX "identity_hour_sends_idx" ON "identity_hour" USING btree ("start","sends") INCLUDE ("server","identity") WHERE "identity_hour"."sends" > 1;
