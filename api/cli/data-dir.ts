/** Where the embedded store lives unless told: your own data. The demo never joins them: it has its own directory. */
export const DATA_DIR = './data';
export const DEMO_DATA_DIR = './data-demo';

/** `--data-dir` when given, else the demo's own directory for the demo, else DATA_DIR (the variable) or ./data. */
export function dataDirOf(flag: string | undefined, demo: boolean): string {
  return flag ?? (demo ? DEMO_DATA_DIR : (process.env.DATA_DIR ?? DATA_DIR));
}
