import assert from 'node:assert/strict';
import { writeFileSync, mkdtempSync, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { one } from '../../src/platform/db/client.ts';
import { importNationalList } from '../../src/modules/limits/national-list.ts';
import { useApp } from '../helpers/app.ts';
import { insertGame, ManualClock } from '../draws/helpers.ts';
import { fund } from '../withdrawals/helpers.ts';
import { identityBody, punctuated, status, verifiedPlayer } from './support.ts';

const LISTED = { message: 'Your CPF is on the national self-exclusion list.' };
const dir = mkdtempSync(join(tmpdir(), 'croupier-national-list-'));

async function listed(db: Parameters<typeof one>[0]): Promise<number> {
  return Number((await one<{ n: number }>(db, sql`select count(*)::integer as n from national_exclusions`))!.n);
}

describe('REGULATION=br: the national self-exclusion list', () => {
  const clock = new ManualClock('2026-11-27T10:00:00.000Z');
  const ctx = useApp({ REGULATION: 'br' }, { clock });

  test('a listed player is refused top-ups and bets; the next import replaces the list', async () => {
    const t = ctx();
    const admin = (await t.withRole('super-admin')).client;
    const player = await verifiedPlayer(t, admin);
    await fund(t, player.id, 10_000n);
    const game = await insertGame(t.db, { type: 'dice3' });
    await t.app.drawScheduler.tick(clock.now());
    const file = join(dir, 'list-1.txt');
    writeFileSync(file, `${punctuated(player.cpf)}\r\n\n12345678909\n`);
    assert.deepEqual(await importNationalList(t.db, file), { cpfs: 2 });
    assert.deepEqual(status(await player.client.post('/api/topups', { payment_method_id: 1, amount: 10 })), [403, LISTED]);
    assert.deepEqual(status(await player.client.post(`/api/games/${game.code}/bets`, { selection: 'big', amount: 1 })), [403, LISTED]);

    writeFileSync(join(dir, 'list-2.txt'), '12345678909\n');
    assert.deepEqual(await importNationalList(t.db, join(dir, 'list-2.txt')), { cpfs: 1 });
    assert.equal((await player.client.post(`/api/games/${game.code}/bets`, { selection: 'big', amount: 1 })).status, 201);
  });

  test('a CPF listed before its player gives it is refused from the first bet; a new import that keeps it still refuses', async () => {
    const t = ctx();
    const admin = (await t.withRole('super-admin')).client;
    const body = identityBody();
    const file = join(dir, 'list-before.txt');
    writeFileSync(file, `${String(body.cpf)}\n12345678909\n`);
    await importNationalList(t.db, file);
    const player = await verifiedPlayer(t, admin, body);
    await fund(t, player.id, 10_000n);
    const game = await insertGame(t.db, { type: 'dice3' });
    await t.app.drawScheduler.tick(clock.now());
    const bet = () => player.client.post(`/api/games/${game.code}/bets`, { selection: 'big', amount: 1 });
    assert.deepEqual(status(await bet()), [403, LISTED]);
    writeFileSync(file, `12345678909\n${String(body.cpf)}\n`);
    await importNationalList(t.db, file);
    assert.deepEqual(status(await bet()), [403, LISTED]);
    writeFileSync(file, '12345678909\n');
    await importNationalList(t.db, file);
    assert.equal((await bet()).status, 201);
  });

  test('a line that is not a CPF stops the import and leaves the list as it was', async () => {
    const t = ctx();
    writeFileSync(join(dir, 'good.txt'), '12345678909\n');
    await importNationalList(t.db, join(dir, 'good.txt'));
    writeFileSync(join(dir, 'bad.txt'), '11144477735\nnot a cpf\n');
    await assert.rejects(importNationalList(t.db, join(dir, 'bad.txt')), /Line 2 of .* is not a CPF/);
    assert.equal(await listed(t.db), 1);
  });

  test('a million CPFs are imported in one replace', async (context) => {
    const t = ctx();
    const file = join(dir, 'million.txt');
    const out = createWriteStream(file);
    for (let chunk = 0; chunk < 100; chunk++) {
      let text = '';
      for (let i = 0; i < 10_000; i++) text += `${String(10_000_000_000 + chunk * 10_000 + i).slice(-11)}\n`;
      if (!out.write(text)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
    const started = performance.now();
    assert.deepEqual(await importNationalList(t.db, file), { cpfs: 1_000_000 });
    context.diagnostic(`1,000,000 CPFs imported in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    assert.equal(await listed(t.db), 1_000_000);
  });
});
