-- Join keys stored compact (shared/correlation-key.ts): the kind prefix kept, the rest the first 96 bits of the key's
-- SHA-256 in base64url (16 characters). Every stored key not yet joined is rewritten so that old and new records
-- still find each other; the same digest the ingest path computes.
UPDATE events SET correlation = split_part(correlation, ':', 1) || ':'
    || translate(left(encode(sha256(convert_to(correlation, 'UTF8')), 'base64'), 16), '+/', '-_')
  WHERE correlation IS NOT NULL AND partner IS NULL;
