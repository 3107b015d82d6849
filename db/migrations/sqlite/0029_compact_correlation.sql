-- Join keys stored compact (shared/correlation-key.ts): the kind prefix kept, the rest a 96-bit digest. Every stored
-- key is rewritten so that old and new records still find each other; lens_stored_correlation is that function,
-- registered on the migrating connection (db/sqlite.ts). Only records not yet joined can still be probed.
UPDATE events SET correlation = lens_stored_correlation(correlation) WHERE correlation IS NOT NULL AND partner IS NULL;
