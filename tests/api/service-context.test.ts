import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRule, listRules, removeRule, updateRule } from '../../api/services/alerts/rules.ts';
import { ruleInputSchema } from '../../shared/alerts/rule.ts';
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
  });
});
