import type { Store, TxRunner } from '../../db/runner.ts';

/**
 * What a service runs against (STYLE.md 5: services take `{ ctx, input }`). `db` is the store, or a caller's open
 * transaction: a service that writes several tables joins it (withTransaction) instead of opening its own, so two
 * services can commit together or not at all.
 */
export interface ServiceContext {
  db: Store | TxRunner;
  /** The time the service acts at (the app's clock). */
  now: number;
}

/** Runs `work` in the caller's transaction when `ctx.db` is one, else in a new transaction of the store. */
export function withTransaction<T>(ctx: ServiceContext, work: (tx: TxRunner) => Promise<T>): Promise<T> {
  return isStore(ctx.db) ? ctx.db.transaction(work) : work(ctx.db);
}

/** A transaction's runner has no `transaction` of its own: transactions do not nest. */
function isStore(db: Store | TxRunner): db is Store {
  return 'transaction' in db;
}
