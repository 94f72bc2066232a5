// Issue 22, own-account money (docs/api.md section 14): under REGULATION=br a top-up is credited
// only when the gateway shows the payer's CPF is the player's; another payer's money is returned.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { useApp, type Client, type SignedIn, type TestApp } from '../helpers/app.ts';
import { notify, pixPaymentsOf, pixWorld, type PixWorld } from '../pix/helpers.ts';
import { balanceOf, createTopup, ledgerOf, paid, webhook, type Topup } from '../wallet/helpers.ts';
import { newCpf, punctuated, verifiedPlayer } from './support.ts';

const THIRD_PARTY = /someone other than the player .*returned to the payer/;
const errorsOf = (json: unknown) => (json as { errors: Record<string, string[]> }).errors;
const dataOf = (json: unknown) => (json as { data: Record<string, unknown> }).data;

async function topupOf(client: Client, id: number): Promise<Topup> {
  const res = await client.get('/api/topups?per_page=100');
  return (res.json as { data: Topup[] }).data.find((topup) => topup.id === id)!;
}

/** Asks of the PSP's `GET /pix` list (the payer-CPF filter) since the calls were cleared. */
function listQueries(world: PixWorld): number {
  return world.sim.calls.filter((call) => call.method === 'GET' && call.path === '/v2/pix').length;
}

describe('REGULATION=br: an API Pix top-up is credited only from the player’s own CPF', () => {
  const ctx = useApp({ REGULATION: 'br' });
  let standard: PixWorld;
  let efi: PixWorld;
  let masked: PixWorld;
  before(async () => {
    standard = await pixWorld(ctx());
    efi = await pixWorld(ctx(), { flavour: 'efi', gateway: 'efi' });
    masked = await pixWorld(ctx(), { flavour: 'efi', gateway: 'efi', maskPayerCpf: true });
  });
  after(async () => {
    for (const world of [standard, efi, masked]) {
      if (world === undefined) continue;
      assert.deepEqual(world.sim.drift, [], 'the simulator answered only what the spec allows');
      await world.sim.stop();
    }
  });

  const player = (t: TestApp, world: PixWorld) => verifiedPlayer(t, world.admin.client);
  const third = () => ({ cpf: newCpf(), name: 'Outra Pessoa' });

  async function assertReturnedOnce(t: TestApp, world: PixWorld, who: SignedIn, topupId: number, endToEndId: string) {
    const now = await topupOf(who.client, topupId);
    assert.equal(now.status, 4);
    assert.match(String(now.reason), THIRD_PARTY);
    assert.equal(await balanceOf(t.db, who.id), 0n);
    assert.deepEqual(await ledgerOf(t.db, who.id), []);
    assert.deepEqual(
      (await pixPaymentsOf(t, topupId)).map((row) => [row.end_to_end_id, row.outcome, row.reason]),
      [[endToEndId, 'returned', 'third_party_payer']],
    );
    const returns = world.sim.payments.get(endToEndId)!.returns;
    assert.equal(returns.length, 1, 'returned exactly once');
    assert.match(String(returns[0]!.descricao), /proprio apostador/);
  }

  test('standard PSP: a third party’s PIX is returned once and never credited, however often it is notified and reconciled', async () => {
    const t = ctx();
    const who = await player(t, standard);
    const topup = await createTopup(who.client, 40, standard.methodId);
    const payment = standard.sim.pay(topup.gateway_payment_id!, third());
    standard.sim.calls.length = 0;
    assert.equal((await notify(t, standard.sim, [payment.endToEndId])).status, 200);
    assert.ok(listQueries(standard) >= 1, 'the payer was established through GET /pix?cpf=');
    assert.equal((await notify(t, standard.sim, [payment.endToEndId, payment.endToEndId])).status, 200);
    await t.app.pixReconciler.run();
    await t.app.pixReconciler.run({ from: new Date(Date.now() - 3_600_000), to: new Date(Date.now() + 60_000) });
    await assertReturnedOnce(t, standard, who, topup.id, payment.endToEndId);
  });

  test('standard PSP: the player’s own PIX is credited (GET /pix?cpf= lists it)', async () => {
    const t = ctx();
    const who = await player(t, standard);
    const topup = await createTopup(who.client, 25, standard.methodId);
    const payment = standard.sim.pay(topup.gateway_payment_id!, { cpf: who.cpf, name: who.fullName });
    assert.equal((await notify(t, standard.sim, [payment.endToEndId])).status, 200);
    assert.equal((await topupOf(who.client, topup.id)).status, 1);
    assert.equal(await balanceOf(t.db, who.id), 2500n);
    assert.deepEqual(
      (await pixPaymentsOf(t, topup.id)).map((row) => row.outcome),
      ['credited'],
    );
  });

  test('standard PSP: a replayed notification of a credited PIX is looked up, not judged again: no GET /pix?cpf=, nothing moves', async () => {
    const t = ctx();
    const who = await player(t, standard);
    const topup = await createTopup(who.client, 25, standard.methodId);
    const payment = standard.sim.pay(topup.gateway_payment_id!, { cpf: who.cpf, name: who.fullName });
    assert.equal((await notify(t, standard.sim, [payment.endToEndId])).status, 200);
    standard.sim.calls.length = 0;
    assert.equal((await notify(t, standard.sim, [payment.endToEndId])).status, 200);
    assert.equal(listQueries(standard), 0, 'whose money it is was not asked again');
    assert.equal(await balanceOf(t.db, who.id), 2500n);
    assert.deepEqual(
      (await pixPaymentsOf(t, topup.id)).map((row) => row.outcome),
      ['credited'],
    );
  });

  test('reconciliation alone: a third party’s PIX is returned once, the player’s own credited once', async () => {
    const t = ctx();
    const who = await player(t, standard);
    const theirs = await createTopup(who.client, 30, standard.methodId);
    const mine = await createTopup(who.client, 20, standard.methodId);
    const stranger = standard.sim.pay(theirs.gateway_payment_id!, third());
    standard.sim.pay(mine.gateway_payment_id!, { cpf: who.cpf, name: who.fullName });
    const first = await t.app.pixReconciler.run();
    assert.equal(first.failures, 0);
    await t.app.pixReconciler.run();
    const returned = await topupOf(who.client, theirs.id);
    assert.equal(returned.status, 4);
    assert.match(String(returned.reason), THIRD_PARTY);
    assert.equal(standard.sim.payments.get(stranger.endToEndId)!.returns.length, 1, 'returned exactly once');
    assert.deepEqual(
      (await pixPaymentsOf(t, theirs.id)).map((row) => [row.outcome, row.reason]),
      [['returned', 'third_party_payer']],
    );
    assert.equal((await topupOf(who.client, mine.id)).status, 1);
    assert.equal(await balanceOf(t.db, who.id), 2000n);
    assert.deepEqual(
      (await ledgerOf(t.db, who.id)).map((line) => [line.type, line.amount]),
      [['topup', 2000n]],
    );
  });

  test('Efí: the payer in gnExtras.pagador decides without asking; a third party is returned, the player credited', async () => {
    const t = ctx();
    const who = await player(t, efi);
    const theirs = await createTopup(who.client, 15, efi.methodId);
    const stranger = efi.sim.pay(theirs.gateway_payment_id!, third());
    efi.sim.calls.length = 0;
    await notify(t, efi.sim, [stranger.endToEndId]);
    await assertReturnedOnce(t, efi, who, theirs.id, stranger.endToEndId);
    const mine = await createTopup(who.client, 16, efi.methodId);
    const own = efi.sim.pay(mine.gateway_payment_id!, { cpf: who.cpf, name: who.fullName });
    await notify(t, efi.sim, [own.endToEndId]);
    assert.equal((await topupOf(who.client, mine.id)).status, 1);
    assert.equal(await balanceOf(t.db, who.id), 1600n);
    assert.equal(listQueries(efi), 0, 'no GET /pix was needed');
  });

  test('Efí with the payer’s CPF masked: GET /pix?cpf= decides', async () => {
    const t = ctx();
    const who = await player(t, masked);
    const theirs = await createTopup(who.client, 17, masked.methodId);
    const stranger = masked.sim.pay(theirs.gateway_payment_id!, third());
    await notify(t, masked.sim, [stranger.endToEndId]);
    await assertReturnedOnce(t, masked, who, theirs.id, stranger.endToEndId);
    const mine = await createTopup(who.client, 18, masked.methodId);
    const own = masked.sim.pay(mine.gateway_payment_id!, { cpf: who.cpf, name: who.fullName });
    masked.sim.calls.length = 0;
    await notify(t, masked.sim, [own.endToEndId]);
    assert.equal((await topupOf(who.client, mine.id)).status, 1);
    assert.equal(await balanceOf(t.db, who.id), 1800n);
    assert.ok(listQueries(masked) >= 1);
  });

  test('a player whose identity is no longer verified is not credited: the payment is returned', async () => {
    const t = ctx();
    const who = await player(t, efi);
    const topup = await createTopup(who.client, 19, efi.methodId);
    // No route undoes a verification; an operator's hand in the database is the only way here.
    await t.db.execute(sql`update user_identities set status = 'rejected', verified_at = null where user_id = ${who.id}`);
    const payment = efi.sim.pay(topup.gateway_payment_id!, { cpf: who.cpf, name: who.fullName });
    await notify(t, efi.sim, [payment.endToEndId]);
    const now = await topupOf(who.client, topup.id);
    assert.equal(now.status, 4);
    assert.match(String(now.reason), /no verified CPF/);
    assert.equal(await balanceOf(t.db, who.id), 0n);
    assert.deepEqual(
      (await pixPaymentsOf(t, topup.id)).map((row) => [row.outcome, row.reason]),
      [['returned', 'player_unverified']],
    );
  });
});

describe('REGULATION=br: the sandbox webhook and the admin confirm state the payer’s CPF', () => {
  const ctx = useApp({ REGULATION: 'br' });

  test('sandbox: without payer_cpf 422; another payer’s → returned (4) with the reason, never credited; replays change nothing', async () => {
    const t = ctx();
    const admin = (await t.withRole('super-admin')).client;
    const who = await verifiedPlayer(t, admin);
    const topup = await createTopup(who.client, 10);

    const missing = await webhook(t, paid(topup));
    assert.equal(missing.status, 422, missing.text);
    assert.deepEqual(errorsOf(missing.json), { payer_cpf: ['The payer cpf field is required.'] });
    const invalid = await webhook(t, { ...paid(topup), payer_cpf: '123' });
    assert.deepEqual(errorsOf(invalid.json), { payer_cpf: ['The payer cpf is not a valid CPF.'] });

    const other = await webhook(t, { ...paid(topup), payer_cpf: newCpf() });
    assert.equal(other.status, 200, other.text);
    assert.deepEqual(dataOf(other.json), { topup_id: topup.id, status: 4, duplicate: false });
    const replay = await webhook(t, { ...paid(topup), payer_cpf: newCpf() });
    assert.deepEqual(dataOf(replay.json), { topup_id: topup.id, status: 4, duplicate: true });
    const own = await webhook(t, { ...paid(topup), payer_cpf: who.cpf });
    assert.deepEqual(dataOf(own.json), { topup_id: topup.id, status: 4, duplicate: true });
    const now = await topupOf(who.client, topup.id);
    assert.equal(now.status, 4);
    assert.match(String(now.reason), THIRD_PARTY);
    assert.equal(await balanceOf(t.db, who.id), 0n);
    assert.deepEqual(await ledgerOf(t.db, who.id), []);
  });

  test('sandbox: the player’s own CPF (punctuated or not) is credited once', async () => {
    const t = ctx();
    const admin = (await t.withRole('super-admin')).client;
    const who = await verifiedPlayer(t, admin);
    const topup = await createTopup(who.client, 12);
    const res = await webhook(t, { ...paid(topup), payer_cpf: punctuated(who.cpf) });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(dataOf(res.json), { topup_id: topup.id, status: 1, duplicate: false });
    const replay = await webhook(t, { ...paid(topup), payer_cpf: who.cpf });
    assert.deepEqual(dataOf(replay.json), { topup_id: topup.id, status: 1, duplicate: true });
    assert.equal(await balanceOf(t.db, who.id), 1200n);
  });

  test('admin confirm: without payer_cpf or with another’s 422 on payer_cpf; with the player’s, paid', async () => {
    const t = ctx();
    const admin = (await t.withRole('super-admin')).client;
    const who = await verifiedPlayer(t, admin);
    const topup = await createTopup(who.client, 14);
    const url = `/api/admin/topups/${topup.id}/confirm`;

    const missing = await admin.post(url);
    assert.equal(missing.status, 422, missing.text);
    assert.deepEqual(errorsOf(missing.json), { payer_cpf: ['The payer cpf field is required.'] });
    const other = await admin.post(url, { payer_cpf: newCpf() });
    assert.equal(other.status, 422, other.text);
    assert.deepEqual(errorsOf(other.json), {
      payer_cpf: ['The payer cpf must be the player’s verified CPF: only their own money is credited.'],
    });
    const status = await admin.put(`/api/admin/topups/${topup.id}`, { status: 1, payer_cpf: newCpf() });
    assert.equal(status.status, 422, status.text);
    assert.deepEqual(Object.keys(errorsOf(status.json)), ['payer_cpf']);
    assert.equal(await balanceOf(t.db, who.id), 0n);

    const own = await admin.post(url, { payer_cpf: punctuated(who.cpf) });
    assert.equal(own.status, 200, own.text);
    assert.equal(dataOf(own.json).status, 1);
    assert.equal(await balanceOf(t.db, who.id), 1400n);
  });

  test('admin status change to paid needs the player’s payer_cpf as well', async () => {
    const t = ctx();
    const admin = (await t.withRole('super-admin')).client;
    const who = await verifiedPlayer(t, admin);
    const topup = await createTopup(who.client, 9);
    const missing = await admin.put(`/api/admin/topups/${topup.id}`, { status: 1 });
    assert.deepEqual(errorsOf(missing.json), { payer_cpf: ['The payer cpf field is required.'] });
    const own = await admin.put(`/api/admin/topups/${topup.id}`, { status: 1, payer_cpf: who.cpf });
    assert.equal(own.status, 200, own.text);
    assert.equal(await balanceOf(t.db, who.id), 900n);
  });
});

describe('REGULATION=none: nobody asks who paid', () => {
  const ctx = useApp({});

  test('the sandbox webhook without payer_cpf and an admin confirm without a body credit, as before', async () => {
    const t = ctx();
    const admin = (await t.withRole('super-admin')).client;
    const who = await t.player();
    const first = await createTopup(who.client, 10);
    const res = await webhook(t, { ...paid(first), payer_cpf: newCpf() });
    assert.deepEqual(dataOf(res.json), { topup_id: first.id, status: 1, duplicate: false });
    const second = await createTopup(who.client, 5);
    assert.equal((await webhook(t, paid(second))).status, 200);
    const third = await createTopup(who.client, 3);
    const confirmed = await admin.post(`/api/admin/topups/${third.id}/confirm`);
    assert.equal(confirmed.status, 200, confirmed.text);
    assert.equal(await balanceOf(t.db, who.id), 1800n);
  });
});
