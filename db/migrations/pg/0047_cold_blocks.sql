-- Cold events in column blocks (ADR 21): a server's events of a clock hour past the hot window, packed. Kept, like the
-- events, in a partition per UTC day (`cold_blocks_pYYYYMMDD`, by `hour`), made with the events' day and dropped with
-- it (db/queries/day-partitions.ts); a partition here for every day the events already have.
CREATE TABLE "cold_blocks" (
	"server" text NOT NULL,
	"hour" bigint NOT NULL,
	"first_seq" bigint NOT NULL,
	"first_ts" bigint NOT NULL,
	"last_ts" bigint NOT NULL,
	"rows" integer NOT NULL,
	"data" "bytea" NOT NULL,
	CONSTRAINT "cold_blocks_server_hour_first_seq_pk" PRIMARY KEY("server","hour","first_seq")
) PARTITION BY RANGE ("hour");
--> statement-breakpoint
CREATE INDEX "cold_blocks_hour_idx" ON "cold_blocks" USING btree ("hour");
--> statement-breakpoint
DO $$
DECLARE
  stamp text;
  day bigint;
BEGIN
  FOR stamp IN SELECT substr(c.relname, 9) FROM pg_inherits AS i JOIN pg_class AS c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'events'::regclass LOOP
    day := (to_date(stamp, 'YYYYMMDD') - DATE '1970-01-01')::bigint;
    EXECUTE format('CREATE TABLE %I PARTITION OF "cold_blocks" FOR VALUES FROM (%s) TO (%s)',
      'cold_blocks_p' || stamp, day * 86400000, (day + 1) * 86400000);
  END LOOP;
END $$;
