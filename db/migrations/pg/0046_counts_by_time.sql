-- Counts by time (ADR 9): the counter tables retention trims become partitioned by range of `start`, so that
-- retention drops a partition instead of deleting its rows. The counts finer than an hour (minute and 5-minute
-- levels), which go with the raw events, in a partition per UTC day beside the events' (`<table>_pYYYYMMDD`); the hour
-- counts, kept to the longer horizon, in a partition per UTC month (`<table>_pYYYYMM`). Every primary key already
-- holds `start`. Each table is renamed away, made again partitioned with the same columns, a partition made for
-- every day (or month) of its rows and of the events' day partitions, its rows copied, the old table dropped, and
-- its primary key and indexes made again under their names. Later days are made as they come
-- (db/queries/day-partitions.ts).
DO $$
DECLARE
  fine text[] := ARRAY['rollup_5min', 'rollup_server_5min', 'rollup_server_minute', 'rollup_client_5min',
    'rollup_client_minute', 'rollup_avoidable_5min', 'rollup_avoidable_minute', 'rollup_fleet_5min',
    'rollup_fleet_minute', 'code_minute', 'context_minute', 'context_server_5min', 'actionability_minute',
    'method_failure_minute', 'era_server_minute', 'era_client_minute'];
  hourly text[] := ARRAY['rollup_hour', 'rollup_server_hour', 'rollup_client_hour', 'rollup_avoidable_hour',
    'rollup_fleet_hour', 'code_hour', 'context_server_hour', 'actionability_hour', 'method_failure_hour',
    'era_server_hour', 'era_client_hour', 'identity_hour', 'denial_hour', 'denial_client_hour', 'denial_server_hour'];
  event_days bigint[];
  tbl text;
  old text;
  by_month boolean;
  key_name text;
  key_def text;
  index_defs text[];
  index_def text;
  first date;
BEGIN
  SELECT coalesce(array_agg((to_date(substr(c.relname, 9), 'YYYYMMDD') - DATE '1970-01-01')::bigint), '{}')
    INTO event_days
    FROM pg_inherits AS i JOIN pg_class AS c ON c.oid = i.inhrelid WHERE i.inhparent = 'events'::regclass;
  FOREACH tbl IN ARRAY fine || hourly LOOP
    old := tbl || '_unpartitioned';
    by_month := tbl = ANY (hourly);
    SELECT conname, pg_get_constraintdef(oid) INTO key_name, key_def
      FROM pg_constraint WHERE conrelid = tbl::regclass AND contype = 'p';
    SELECT coalesce(array_agg(pg_get_indexdef(indexrelid)), '{}') INTO index_defs
      FROM pg_index WHERE indrelid = tbl::regclass AND NOT indisprimary;
    EXECUTE format('ALTER TABLE %I RENAME TO %I', tbl, old);
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS) PARTITION BY RANGE ("start")', tbl, old);
    FOR first IN EXECUTE format(
      'SELECT DISTINCT date_trunc(%L, DATE ''1970-01-01'' + day::integer)::date FROM (
         SELECT floor("start" / 86400000.0)::bigint AS day FROM %I UNION SELECT unnest($1)) AS days',
      CASE WHEN by_month THEN 'month' ELSE 'day' END, old) USING event_days LOOP
      EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%s) TO (%s)',
        tbl || '_p' || to_char(first, CASE WHEN by_month THEN 'YYYYMM' ELSE 'YYYYMMDD' END), tbl,
        (first - DATE '1970-01-01')::bigint * 86400000,
        ((CASE WHEN by_month THEN first + INTERVAL '1 month' ELSE first + INTERVAL '1 day' END)::date
          - DATE '1970-01-01')::bigint * 86400000);
    END LOOP;
    EXECUTE format('INSERT INTO %I SELECT * FROM %I', tbl, old);
    EXECUTE format('DROP TABLE %I', old);
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I %s', tbl, key_name, key_def);
    FOREACH index_def IN ARRAY index_defs LOOP
      EXECUTE index_def;
    END LOOP;
  END LOOP;
END $$;
