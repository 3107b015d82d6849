import type { HiddenFinding } from './index.ts';

/** One hidden failure as a list shows it: which request, and what in its text shows it. */
export interface HiddenListed extends HiddenFinding {
  id: string;
  ts: string;
  server: string;
  client: string | null;
  tool: string | null;
}

/**
 * The first `limit` hidden failures in the order added (time order, as `lens report` streams): a list an operator
 * reads, bounded so that a log full of them keeps the report's memory flat; their count is in the counts.
 */
export class HiddenList {
  readonly listed: HiddenListed[] = [];

  constructor(private readonly limit: number) {}

  add(entry: HiddenListed): void {
    if (this.listed.length < this.limit) this.listed.push(entry);
  }
}
