import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { asc, sql } from 'drizzle-orm';
import { providerTransactions } from '../../src/modules/games/seamless-wallet/tables.ts';
import { one } from '../../src/platform/db/client.ts';
import { listMigrations, migrate } from '../../src/platform/db/migrate.ts';
import { freshDatabase } from '../helpers/database.ts';

const MIGRATION = '20261126110000_provider_wallet_replays_and_redaction';

/** Bodies as the wallet stored them before the migration: as received, credentials and all. */
const STORED = {
  demoBet: { token: 'Sess10nT0kenOfAlice', transaction_id: 'r1:bet', round_id: 'r1', game: 'demo-slot', amount: 2.5, currency: 'BRL' },
  hubBet: {
    request_uuid: 'c1',
    token: 'hub-token-of-bob',
    transaction_uuid: 'h1',
    round: 'h-r1',
    game_code: 'g',
    amount: 250_000,
    currency: 'BRL',
    meta: { sessionId: 'nested-session', note: 'kept' },
  },
  nested: { transaction_id: 'n1', legs: [{ auth_code: 'A1', amount: 1 }, 'plain'], Signature: 'abc', PlatformKey: 'k' },
  win: { transaction_id: 'r1:win', bet_transaction_id: 'r1:bet', round_id: 'r1', amount: 5, currency: 'BRL', round_closed: true },
};

describe(`migration ${MIGRATION}`, () => {
  test('wallet calls stored before it keep their bodies with every credential replaced by [redacted], at any depth; the rest is untouched', async () => {
    const database = await freshDatabase(listMigrations().filter((migration) => migration.name < MIGRATION));
    try {
      const { db } = database.database;
      await db.insert(providerTransactions).values([
        { providerId: 1, transactionId: 'r1:bet', kind: 'bet', outcome: 'OK', amount: 250n, currency: 'BRL', payload: STORED.demoBet },
        { providerId: 2, transactionId: 'h1', kind: 'bet', outcome: 'OK', amount: 250n, currency: 'BRL', payload: STORED.hubBet },
        { providerId: 1, transactionId: 'n1', kind: 'win', outcome: 'OK', amount: 100n, currency: 'BRL', payload: STORED.nested },
        { providerId: 1, transactionId: 'r1:win', kind: 'win', outcome: 'OK', amount: 500n, currency: 'BRL', payload: STORED.win },
        // A tombstone has no body.
        { providerId: 1, transactionId: 'gone', kind: 'bet', outcome: 'BET_REFUNDED', payload: null },
      ]);

      assert.ok((await migrate(database.database)).includes(MIGRATION));

      const stored = await db
        .select({ id: providerTransactions.transactionId, payload: providerTransactions.payload })
        .from(providerTransactions)
        .orderBy(asc(providerTransactions.id));
      assert.deepEqual(stored, [
        { id: 'r1:bet', payload: { ...STORED.demoBet, token: '[redacted]' } },
        { id: 'h1', payload: { ...STORED.hubBet, token: '[redacted]', meta: { sessionId: '[redacted]', note: 'kept' } } },
        {
          id: 'n1',
          payload: {
            transaction_id: 'n1',
            legs: [{ auth_code: '[redacted]', amount: 1 }, 'plain'],
            Signature: '[redacted]',
            PlatformKey: '[redacted]',
          },
        },
        { id: 'r1:win', payload: STORED.win },
        { id: 'gone', payload: null },
      ]);
      const dump = JSON.stringify(stored);
      for (const secret of ['Sess10nT0kenOfAlice', 'hub-token-of-bob', 'nested-session', 'A1', 'abc']) {
        assert.equal(dump.includes(`"${secret}"`), false, secret);
      }
      // The rule the wallet functions apply on the way in is the same function.
      const fresh = await one<{ redacted: unknown }>(
        db,
        sql`select provider_payload_redacted(${JSON.stringify(STORED.hubBet)}::jsonb) as redacted`,
      );
      assert.deepEqual(fresh?.redacted, stored[1]!.payload);
    } finally {
      await database.drop();
    }
  });
});
