import { existsSync } from 'node:fs';

/**
 * Whether a program from a Debian package is missing, so that a suite skips. CI installs each such package and must
 * never skip what needs it, so there a missing one is an error; elsewhere the skip is said aloud.
 */
export function debianProgramMissing(program: string, debianPackage: string, suite: string): boolean {
  if (existsSync(program)) return false;
  if (process.env.CI) throw new Error(`${suite} needs ${program} (apt-get install ${debianPackage})`);
  console.warn(`\n*** ${suite} SKIPPED: no ${program}. Install Debian's ${debianPackage} to run it. ***\n`);
  return true;
}
