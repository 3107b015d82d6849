import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRule, listRules, removeRule, updateRule } from '../../api/services/alerts/rules.ts';
import { readServerConfig, setDiscovery, setOverrides } from '../../api/services/server-config.ts';
import type { TxRunner } from '../../db/runner.ts';
import { ruleInputSchema } from '../../shared/alerts/rule.ts';
import { parseDiscovery } from '../../shared/discovery.ts';
import { TEST_NOW } from '../support/app.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';

const rule = (name: string) => ruleInputSchema.parse({ name, metric: 'refusal_count', groupBy: 'server', warning: 3 });

/** Services take `{ ctx, input }`; a `ctx.db` that is the caller's transaction is joined, not nested. */
describe.each(STORE_KINDS)('services sharing a transaction on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    beforeAll(async () => {
      db = await kind.open();
    });
    afterAll(async () => db.dispose());

    const names = async () => (await listRules(db.store)).map((r) => r.name).sort();

    it("two services in the caller's transaction commit together, or not at all", async () => {
      const kept = await createRule({ ctx: { db: db.store, now: TEST_NOW }, input: { rule: rule('kept') } });
      await expect(
        db.store.transaction(async (tx) => {
          const ctx = { db: tx, now: TEST_NOW + 1 };
          await createRule({ ctx, input: { rule: rule('added') } });
          await updateRule({ ctx, input: { id: kept.id, rule: rule('renamed') } });
          throw new Error('the caller changes its mind');
        }),
      ).rejects.toThrow('changes its mind');
      expect(await names()).toEqual(['kept']);

      await db.store.transaction(async (tx) => {
        const ctx = { db: tx, now: TEST_NOW + 2 };
        await createRule({ ctx, input: { rule: rule('added') } });
        expect(await removeRule({ ctx, input: { id: kept.id } })).toBe(true);
      });
      expect(await names()).toEqual(['added']);
    });

    it("a server's contract and its overrides change in the caller's transaction, or not at all", async () => {
      const source = { endpoints: [{ method: 'POST', path: '/mcp' }] };
      const parsed = parseDiscovery(source);
      if (!parsed.ok) throw new Error(parsed.error.message);
      const change = async (tx: TxRunner, now: number) => {
        const ctx = { db: tx, now };
        await setDiscovery({ ctx, input: { server: 'desk', document: parsed.document, source } });
        const overrides = [{ match: { httpStatus: 503 }, bucket: 'refusal' as const, kind: 'gone' }];
        await setOverrides({ ctx, input: { server: 'desk', overrides } });
      };
      await expect(
        db.store.transaction(async (tx) => {
          await change(tx, TEST_NOW);
          throw new Error('the caller changes its mind');
        }),
      ).rejects.toThrow('changes its mind');
      expect(await readServerConfig(db.store, 'desk')).toBeNull();

      await db.store.transaction((tx) => change(tx, TEST_NOW + 1));
      const saved = await readServerConfig(db.store, 'desk');
      expect(saved?.discovery).not.toBeNull();
      expect(saved?.overrides).toHaveLength(1);
      expect(saved?.updatedAt).toBe(TEST_NOW + 1);
    });
  });
});
