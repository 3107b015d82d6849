/**
 * Text as both stores keep it: well-formed UTF-16 (a lone surrogate becomes U+FFFD, which PostgreSQL and SQLite
 * would otherwise store differently) and without NUL (PostgreSQL text cannot hold one). The one rule for names,
 * derived columns and proxy facts alike.
 */
export function storableText(text: string): string {
  const wellFormed = text.isWellFormed() ? text : text.toWellFormed();
  return wellFormed.includes('\u0000') ? wellFormed.replaceAll('\u0000', '') : wellFormed;
}
