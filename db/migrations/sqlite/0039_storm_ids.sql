-- A storm's id is the digest of its kind, client, server and first attempt, which is now the attempt's id and time
-- (shared/analysis/storms.ts stormId): logs reuse ids, and two storms whose first attempts shared an id were one row.
-- A storm still open would continue under its new id beside its row under the old one, so every partition's storms
-- are written again from its events when a batch next touches it (a partition without storm state is replayed).
-- Storms of partitions no batch touches keep their rows and old ids: nothing continues them.
UPDATE gate_partitions SET storms = NULL;
