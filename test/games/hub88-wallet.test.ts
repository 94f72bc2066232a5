// Hub88's wallet protocol where it is its own (docs/api.md section 15, docs/games.md "Connecting
// a Hub88 operator account"): its published signing test vector, full rounds as the simulator
// plays them, answers by request_uuid, rounds closed by a bet, rollbacks of one transaction,
// the player named besides the token, and refusals worded as Hub88 documents them. What every
// adapter shares is the conformance kit's (wallet-hub88.test.ts).
import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import { describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { hub88Signature, hub88Verifies } from '../../src/modules/games/hub88/signature.ts';
import { providerBets, providerRequests, providerTransactions } from '../../src/modules/games/seamless-wallet/tables.ts';
import { providers } from '../../src/modules/games/tables.ts';
import { users } from '../../src/modules/users/tables.ts';
import { verifyLedger } from '../../src/modules/wallet/verify.ts';
import { rows } from '../../src/platform/db/client.ts';
import { useApp, type TestApp } from '../helpers/app.ts';
import { balanceOf, ledgerOf } from '../wallet/helpers.ts';
import { fund } from '../withdrawals/helpers.ts';
import { createGame, createProvider, endSession, launch, tokenOwners, type TestProvider } from './helpers.ts';
import { hub88Driver } from './hub88-driver.ts';
import { Hub88Simulator, PER_CENT, requestUuid, rsaKeyPair, signed, type Hub88Path } from './hub88-simulator.ts';
import { nextId } from './kit.ts';

/**
 * Hub88's published signing example (docs.hub88.io, "Request signing"): the example private key
 * (Hub88's own examples repository, priv/private.pem, which the docs link), the request body and
 * the signature the docs give. The docs print the body with `"game_code":"ctl_dragonrising"`,
 * but their signature is that of the body as first published, with `"game_id":39` (Hub88's
 * examples repository and every public implementation test with it); the body as printed today
 * has another signature, which this test also pins.
 */
const EXAMPLE_PRIVATE_KEY = `-----BEGIN RSA PRIVATE KEY-----
MIIEowIBAAKCAQEAx3IRpSri/9SjA7f9me35v6LtJzn8drb1vg/UeGaPPFR16KsU
OPqbGJ2r1pRPJMedqqbO7Agt/HavWDcQhNZlc9VrVQcWK/w2HD9PflQYv0oQMiPK
5Mut/eIdFOpwwwaRAU4s6WOkJdSmP9F4cfr/amTZZoY59/t3SZWYjgZ9/LDI2X8S
3uLW/JPiH+6dm2bU8ykhxoWwLE/piJxynS73EzM0tgjHyTUMkarhK9qRVZk581/k
zmtJLLBZQl9XrQQcIfQ+zFZj7ijddOptxpxqCmq8gQNohB56p34yjVH3uAJAaFvI
Vg5mEkprrvNVDJwGonHSaaq7AICmzrF6h/r5dwIDAQABAoIBAFNIGIIlpGA7hE57
N9RdANq6x9iHaBqST48rwQb9nHYOtqWPOoSIcNcYj7ase1faWsX1nZYF3F39mT52
z9kIRZjW11jL+sAnMtkcvq77otHNtXGabJCZVHAdSROAydFGHqqy4CIcz2BUqY8g
gvDlZF4i+nzLM82PHcKGSwuTPmyTED37RqtscSxd7cGQkuL6OnohSFpW+5tvZcGZ
Ui4oVRrX4oVXz//3TDESRfondwQVKPoqQr7aiyYSKOJJMngIXmCvJ6p3XNiEW+dP
uXxm5N9QRkkX00v3vPTdsuwUjt3wepDJhR9BecRERRYNJIrqsgNxkJTJEDlsGqi5
kIKPb/ECgYEA8nKLPCfIaZ4G/7pUXQ64MMemS7qH17aU7Eb+mqDpFRt2bNr/yw12
qIhUkb6XyI/ZwOF2gdhPzte25CuZzNsMu3GqlEQ77AR1XCyu1AY8oiJS4TSmRovJ
x86BK8C8OY75myYcmRIvsusxviZfUCunDaexVGOqIKMRNrgJ2i8194UCgYEA0pgp
nzxI4H/Ej+5KOmEw9P2xstIXpW+CcEDbrh5pqW+PwNP/TUxC445Rn4R8AVXFVnbH
6DLrW35A9KBcA7Ve37vkVUILxPC+S967+gdRAd3BQTuUmi31+7cBjmNLKJMMC8Fl
DZ5S8zwRuVrU6o3bbPUbC5gDb/cN/7GVtb/D18sCgYEA2ma+8LCxxBr8GRAkATRK
Tn77WgqtZm/uVa5amrbLYR09IDBj7umw837kF+qGVsDnGu6/z5Ypxp3h/kccpELL
hGuPi0KwbBtUEXWbBBqeMjwTRxYjlzdDzP9Es0JLDNq0FcROTMHqQBXI2I8+mzzH
nvBqOSgS0JW04wMEtQyEY/UCgYBNMDKJR9paVtpf+vJABaGhGl+IcJL0MzP3Gv6q
CkGmNdrVzZ5U4a/eoipusmuVPa/P6keJZyh254a9Yw122oKEtOSTD1sq+yZ0vpXd
pdLeQT51P3ZPMKtpcIFkhCZnH8aZhHAalr5GouzIKG/D7OzROeGI1VXlMwNxhdCe
xkPtEwKBgG8IJGHMuzBGDtykqPwOdz7llWwzl3GgWiEDqt6kbIEr8F7CbbnlvrhJ
HRmd9tFEtYz2/3x9VTv9NCjd8FiWyPcivkd4dvMInfgBoCBJxw0I+nyjqQpiLuhx
x4xyX1tFKW+sAN+Mb9dO+ZHGpcz2FpPz5uXv6oCzTG9BLcgg0mwx
-----END RSA PRIVATE KEY-----
`;
const EXAMPLE_BODY =
  '{"user":"3nYTOSjdlF6UTz9Ir","country":"XX","currency":"EUR","operator_id":1,"token":"cd6bd8560f3bb8f84325152101adeb45",' +
  '"platform":"GPL_DESKTOP","game_id":39,"lang":"en","lobby_url":"https://examplecasino.io","ip":"::ffff:10.0.0.39"}';
const EXAMPLE_SIGNATURE =
  'FFdiceKlsnmrBMhWopZYQXrJSMqxJWkynbaiOnuUE1p4mrg2UydlSAdKbOWQZ7o5USbA3SHPum3XuRCa9INWbcp+fdcOhjz0S0JLKF6uXJR2T8zlF+L+8v2lkBzPOvLg6yRuUyspxtcHB6Vlyd0Sj4v8vk5HxoVv1ZV7EpJglzHs7xKchuifjjhUwkX7AAZwvJCNKo/VZrhtfxHd/k8aq7+9h7AztiiiLO7CXbEbo8snDqMqoB/tBAImv45NcAuReBZGb3QY37MbRoOT/uQGj+9ae5VRNpJ74qs3COraDqZ5kqzsa5SjN1cML2foP13Deqp0FTY0Ek521d8CPWQY6A==';
/** The body as the docs print it today (`game_code`), with the signature it really has. */
const PRINTED_BODY = EXAMPLE_BODY.replace('"game_id":39', '"game_code":"ctl_dragonrising"');
const PRINTED_SIGNATURE =
  'd+UaR1o7MQcDNYXddeQoo6h8K/RD1S/733t2YJ8i1JBAigfh29ObpdcMS9G+hnRDSACkbl/jpDCjSf0Ca4t1+a17GPX0+GyLBSWaRbrQ3Pz4N8oSztfzixeXHDE+ahSbV99CrbxXyHfw0rkJ7iG1ckNbHlFLYLXhFCIfr6fMN6hyyvVM5MHyCpHfrMpGlvP2uHLirSRJ+atoIRtfQJlImNRWJEm6H4eGpzCdMbVaooIXSw5e9mj0KXSx2hXBNlA7VQ/h4OBM4tuTYAuhWnXY1WwNAJfYreJ8rn6HIHUFryN7KjPVuIIGdQ2Mtz+xdRXhpjWVm5Hq9HkIktC7nMn/vQ==';
/** Rows of signatures.csv in Hub88's examples repository, signed with the same key. */
const EXAMPLES_CSV: [string, string][] = [
  [
    'test',
    'V3bEXE72v0fbrKNV6bHW945WgsuRvkKcUBA4+C2AiUp+ssrItfk4btBhQfuupBsUXY11JZY+2DSK15NlXeziZbtGQRbgq6v/Ou2tWd652r39nKCfwpxLw1foXaLiSP5ZPudi42M7ANG4XygjaErPiIMHHQaEA6WKqSLIPmJmJJ1u6PkLulpG5CEMO+/6tWRBMMd5vZuHxqc2koaCWI6a3sW+75INSPXbSAEnwVkWPIeUg+EYCdUE7RARSlT/xf5Bp37qtEGZSG7TF7198HDQjAMpC7HBY+tUXsNZwXJJpcRxRh0Pqfz7Q9LG0ikFfdQE+0gCnuLOmx0IMtLIFjVQpA==',
  ],
  [
    '{"game_id":132,"request_uuid":"583c985f-fee6-4c0e-bbf5-308aad6265af","token":"55b7518e-b89e-11e7-81be-58404eea6d16"}',
    'Kd+/B1NealiUiv/9cI/0MQuwnLiAMteKFesys/b8Koe9pVP/H7Hw54W99+q1uMGizaXj+nMIzcwerFSlSkMj94uqXHueGFvDKI4YGKqntlj7EvID1B7P+VlS/A5RN4RjghIMR3MGnsJZT43G8tAju+xJCzjzDmgS25IPVIZobabIpct87ReqxYfkqIlqgH/uKkpU0ezG25mmhMa82Umat1eu88dJDCa1NsbX9SF5gtdC+A8pYS/o87s2RWHG5VVYM8awAwxPnwZacyKIEbXS59BcAI6StUm+/sJWvSKKvR6lxCiJyQOWzG1IwN9NxBthp5AfQx23G5aDMnYDkSUsIw==',
  ],
];

const simulator = new Hub88Simulator();
const driver = hub88Driver(simulator);

interface Table {
  provider: TestProvider;
  game: { id: number; code: string };
  player: { id: number };
  user: string;
  token: string;
  session: number;
}

/** A Hub88 provider, one of its games, a player funded with `cents` and a launch (the token is the session's). */
async function table(t: TestApp, cents = 10_000n, beside?: Table): Promise<Table> {
  const provider = beside?.provider ?? (await driver.createProvider(t, {}));
  const game = beside?.game ?? (await createGame(t, provider.id));
  const player = await t.player();
  await fund(t, player.id, cents);
  const launched = await launch(t, { userId: player.id, providerId: provider.id, gameId: game.id, session: true });
  return { provider, game, player, user: `player-${player.id}`, token: launched.token, session: launched.id };
}

const call = (t: TestApp, s: Table, path: Hub88Path, body: Record<string, unknown>) => simulator.call(t, s.provider.code, path, body);

/** Hub88's bodies, as its Wallet API reference lists their fields. */
const bodies = {
  info: (s: Table) => ({ user: s.user, request_uuid: requestUuid() }),
  balance: (s: Table) => ({ user: s.user, token: s.token, request_uuid: requestUuid(), game_code: s.game.code }),
  bet: (s: Table, cents: bigint, extra: Record<string, unknown> = {}) => ({
    user: s.user,
    transaction_uuid: nextId('bet'),
    supplier_transaction_id: nextId('supplier'),
    token: s.token,
    round_closed: false,
    round: nextId('round'),
    reward_uuid: null,
    request_uuid: requestUuid(),
    is_free: false,
    is_aggregated: false,
    game_code: s.game.code,
    currency: 'BRL',
    bet: null,
    amount: Number(cents * PER_CENT),
    meta: {},
    ...extra,
  }),
  win: (s: Table, bet: Record<string, unknown>, cents: bigint, extra: Record<string, unknown> = {}) => ({
    user: s.user,
    transaction_uuid: nextId('win'),
    supplier_transaction_id: nextId('supplier'),
    token: s.token,
    round_closed: true,
    round: bet.round,
    reward_uuid: null,
    request_uuid: requestUuid(),
    reference_transaction_uuid: bet.transaction_uuid,
    is_free: false,
    is_aggregated: false,
    game_code: s.game.code,
    currency: 'BRL',
    bet: null,
    amount: Number(cents * PER_CENT),
    meta: {},
    ...extra,
  }),
  rollback: (s: Table, bet: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    user: s.user,
    transaction_uuid: nextId('rollback'),
    supplier_transaction_id: nextId('supplier'),
    token: s.token,
    round_closed: true,
    round: bet.round,
    request_uuid: requestUuid(),
    reference_transaction_uuid: bet.transaction_uuid,
    game_code: s.game.code,
    meta: {},
    ...extra,
  }),
};

/** An answer's status and balance in cents (undefined where it carries none). */
function said(reply: { json: Record<string, unknown> }): [unknown, bigint | undefined] {
  const balance = reply.json.balance;
  return [reply.json.status, typeof balance === 'number' ? BigInt(balance) / PER_CENT : undefined];
}

describe('Hub88 wallet protocol', () => {
  const ctx = useApp();

  test('Hub88’s published test vector: its example body signed with its example key is its example signature, and verifies', () => {
    assert.equal(hub88Signature(EXAMPLE_BODY, EXAMPLE_PRIVATE_KEY), EXAMPLE_SIGNATURE);
    const publicKey = createPublicKey(EXAMPLE_PRIVATE_KEY).export({ type: 'spki', format: 'pem' }).toString();
    assert.equal(hub88Verifies(EXAMPLE_BODY, EXAMPLE_SIGNATURE, publicKey), true);
    for (const [data, signature] of EXAMPLES_CSV) {
      assert.equal(hub88Signature(data, EXAMPLE_PRIVATE_KEY), signature, data);
      assert.equal(hub88Verifies(data, signature, publicKey), true, data);
    }
    // The body as the docs print it today is another body: its own signature, not the published one.
    assert.equal(hub88Signature(PRINTED_BODY, EXAMPLE_PRIVATE_KEY), PRINTED_SIGNATURE);
    assert.equal(hub88Verifies(PRINTED_BODY, EXAMPLE_SIGNATURE, publicKey), false);
    // One byte more, another key, or no base64 at all: refused.
    assert.equal(hub88Verifies(`${EXAMPLE_BODY} `, EXAMPLE_SIGNATURE, publicKey), false);
    assert.equal(hub88Verifies(EXAMPLE_BODY, EXAMPLE_SIGNATURE, rsaKeyPair().publicKey), false);
    assert.equal(hub88Verifies(EXAMPLE_BODY, 'not base64!', publicKey), false);
    assert.equal(hub88Verifies(EXAMPLE_BODY, undefined, publicKey), false);
  });

  test('a round as Hub88 plays it: user/info, user/balance, a bet, its win and a rollback, each answered as Hub88 documents', async () => {
    const t = ctx();
    const s = await table(t);
    assert.deepEqual((await call(t, s, 'user/info', bodies.info(s))).json.status, 'RS_OK');
    const balance = await call(t, s, 'user/balance', bodies.balance(s));
    assert.deepEqual(balance.json, {
      user: s.user,
      status: 'RS_OK',
      request_uuid: (balance.json as { request_uuid: string }).request_uuid,
      currency: 'BRL',
      balance: 10_000_000,
    });

    const bet = bodies.bet(s, 250n);
    assert.deepEqual(said(await call(t, s, 'transaction/bet', bet)), ['RS_OK', 9_750n]);
    assert.deepEqual(said(await call(t, s, 'transaction/win', bodies.win(s, bet, 1_000n))), ['RS_OK', 10_750n]);
    const lost = bodies.bet(s, 500n);
    assert.deepEqual(said(await call(t, s, 'transaction/bet', lost)), ['RS_OK', 10_250n]);
    assert.deepEqual(said(await call(t, s, 'transaction/rollback', bodies.rollback(s, lost))), ['RS_OK', 10_750n]);
    assert.deepEqual(said(await call(t, s, 'transaction/bet', bodies.bet(s, 20_000n))), ['RS_ERROR_NOT_ENOUGH_MONEY', 10_750n]);

    assert.equal(await balanceOf(t.db, s.player.id), 10_750n);
    assert.deepEqual(
      (await ledgerOf(t.db, s.player.id)).map((line) => [line.type, line.amount]),
      [
        ['adjustment', 10_000n],
        ['bet', -250n],
        ['win', 1_000n],
        ['bet', -500n],
        ['bet_refund', 500n],
      ],
    );
  });

  test('every call sent again with its request_uuid gets its first answer byte for byte, though the balance moved since; its money moved once', async () => {
    const t = ctx();
    const s = await table(t);
    const bet = bodies.bet(s, 1_000n);
    const refunded = bodies.bet(s, 300n);
    const sent: [Hub88Path, Record<string, unknown>][] = [
      ['user/info', bodies.info(s)],
      ['user/balance', bodies.balance(s)],
      ['transaction/bet', bet],
      ['transaction/win', bodies.win(s, bet, 2_000n)],
      ['transaction/bet', refunded],
      ['transaction/rollback', bodies.rollback(s, refunded)],
    ];
    const first = [];
    for (const [path, body] of sent) first.push((await call(t, s, path, body)).text);
    const lines = (await ledgerOf(t.db, s.player.id)).length;
    // The balance moves after every first answer…
    assert.deepEqual(said(await call(t, s, 'transaction/bet', bodies.bet(s, 100n))), ['RS_OK', 10_900n]);
    // …and every replay still says what it said first, without moving a cent.
    for (const [index, [path, body]] of sent.entries()) {
      for (let again = 0; again < 2; again++) assert.equal((await call(t, s, path, body)).text, first[index], `${path} again`);
    }
    // Hub88 may serialize a retry differently: the same content is the same request.
    const reordered = Object.fromEntries(Object.entries(bet).reverse());
    assert.equal(
      (await simulator.call(t, s.provider.code, 'transaction/bet', reordered, { raw: JSON.stringify(reordered, null, 2) })).text,
      first[2],
    );
    assert.equal(await balanceOf(t.db, s.player.id), 10_900n);
    assert.equal((await ledgerOf(t.db, s.player.id)).length, lines + 1);
    const [kept] = await rows<{ n: number }>(
      t.db,
      sql`select count(*)::int as n from provider_requests where provider_id = ${s.provider.id}`,
    );
    assert.equal(kept!.n, sent.length + 1);
  });

  test('a request_uuid sent again with other content is RS_ERROR_DUPLICATE_TRANSACTION and moves nothing; a new request_uuid for a known transaction is a replay with the current balance', async () => {
    const t = ctx();
    const s = await table(t);
    const bet = bodies.bet(s, 1_000n);
    assert.deepEqual(said(await call(t, s, 'transaction/bet', bet)), ['RS_OK', 9_000n]);
    const reused = { ...bodies.bet(s, 2_000n), request_uuid: bet.request_uuid };
    assert.deepEqual(said(await call(t, s, 'transaction/bet', reused)), ['RS_ERROR_DUPLICATE_TRANSACTION', undefined]);
    assert.deepEqual(said(await call(t, s, 'transaction/bet', bodies.bet(s, 500n))), ['RS_OK', 8_500n]);
    // The first bet under a new request_uuid: a replay of its transaction, answered with the balance as it is now.
    assert.deepEqual(said(await call(t, s, 'transaction/bet', { ...bet, request_uuid: requestUuid() })), ['RS_OK', 8_500n]);
    assert.equal(await balanceOf(t.db, s.player.id), 8_500n);
    const recorded = await t.db.select().from(providerTransactions).where(eq(providerTransactions.providerId, s.provider.id));
    assert.deepEqual(recorded.map((row) => row.transactionId).sort(), [bet.transaction_uuid, (await lastBet(t, s.provider.id))!].sort());
  });

  test('a bet that closes its round settles it; a win Hub88 sends later for that round is paid, a bet into it is refused', async () => {
    const t = ctx();
    const s = await table(t);
    const bet = bodies.bet(s, 1_000n, { round_closed: true });
    assert.deepEqual(said(await call(t, s, 'transaction/bet', bet)), ['RS_OK', 9_000n]);
    const [round] = await t.db.select().from(providerBets).where(eq(providerBets.providerId, s.provider.id));
    assert.deepEqual([round!.status, round!.settledAt !== null], [1, true]);
    assert.deepEqual(said(await call(t, s, 'transaction/win', bodies.win(s, bet, 3_000n, { round_closed: true }))), ['RS_OK', 12_000n]);
    const late = bodies.bet(s, 100n, { round: bet.round });
    assert.deepEqual(said(await call(t, s, 'transaction/bet', late)), ['RS_ERROR_UNKNOWN', undefined]);
    const [after] = await t.db.select().from(providerBets).where(eq(providerBets.providerId, s.provider.id));
    assert.deepEqual([after!.betAmount, after!.winAmount, after!.status], [1_000n, 3_000n, 1]);
    assert.equal(await balanceOf(t.db, s.player.id), 12_000n);
  });

  test('a rollback undoes one bet of a round whose other bet won; the rollback of the bet a win named is refused', async () => {
    const t = ctx();
    const s = await table(t);
    const round = nextId('round');
    const first = bodies.bet(s, 1_000n, { round });
    const extra = bodies.bet(s, 400n, { round });
    assert.deepEqual(said(await call(t, s, 'transaction/bet', first)), ['RS_OK', 9_000n]);
    assert.deepEqual(said(await call(t, s, 'transaction/bet', extra)), ['RS_OK', 8_600n]);
    assert.deepEqual(said(await call(t, s, 'transaction/win', bodies.win(s, first, 2_500n, { round_closed: false }))), ['RS_OK', 11_100n]);
    // The extra ball failed on Hub88's side: its rollback gives its stake back, the win stays.
    assert.deepEqual(said(await call(t, s, 'transaction/rollback', bodies.rollback(s, extra))), ['RS_OK', 11_500n]);
    // The bet that won cannot be undone while its win stands.
    assert.deepEqual(said(await call(t, s, 'transaction/rollback', bodies.rollback(s, first))), ['RS_ERROR_UNKNOWN', undefined]);
    assert.equal(await balanceOf(t.db, s.player.id), 11_500n);
    const [row] = await t.db.select().from(providerBets).where(eq(providerBets.providerId, s.provider.id));
    assert.deepEqual([row!.betAmount, row!.refundAmount, row!.winAmount, row!.status], [1_400n, 400n, 2_500n, 0]);
  });

  test('a rollback of a bet never seen is RS_OK with the balance and is recorded: the bet arriving later is RS_ERROR_TRANSACTION_ROLLED_BACK and takes nothing', async () => {
    const t = ctx();
    const s = await table(t);
    const bet = bodies.bet(s, 1_000n);
    assert.deepEqual(said(await call(t, s, 'transaction/rollback', bodies.rollback(s, bet))), ['RS_OK', 10_000n]);
    assert.deepEqual(said(await call(t, s, 'transaction/bet', bet)), ['RS_ERROR_TRANSACTION_ROLLED_BACK', undefined]);
    assert.deepEqual(said(await call(t, s, 'transaction/win', bodies.win(s, bet, 500n))), ['RS_ERROR_TRANSACTION_ROLLED_BACK', undefined]);
    assert.equal(await balanceOf(t.db, s.player.id), 10_000n);
    assert.deepEqual(await t.db.select().from(providerBets).where(eq(providerBets.providerId, s.provider.id)), []);
  });

  test('token expiry is checked on bets and balances only: after the session ended, the wins and rollbacks carrying its token are applied', async () => {
    const t = ctx();
    const s = await table(t);
    const won = bodies.bet(s, 1_000n);
    const undone = bodies.bet(s, 300n);
    await call(t, s, 'transaction/bet', won);
    await call(t, s, 'transaction/bet', undone);
    await endSession(t, s.session);
    assert.deepEqual(said(await call(t, s, 'transaction/bet', bodies.bet(s, 100n))), ['RS_ERROR_TOKEN_EXPIRED', undefined]);
    assert.deepEqual(said(await call(t, s, 'user/balance', bodies.balance(s))), ['RS_ERROR_TOKEN_EXPIRED', undefined]);
    assert.deepEqual(said(await call(t, s, 'transaction/win', bodies.win(s, won, 4_000n))), ['RS_OK', 12_700n]);
    assert.deepEqual(said(await call(t, s, 'transaction/rollback', bodies.rollback(s, undone))), ['RS_OK', 13_000n]);
  });

  test('a call naming another player than its token’s or bet’s is refused and moves nothing', async () => {
    const t = ctx();
    const alice = await table(t);
    const bob = await table(t, 5_000n, alice);
    const bet = bodies.bet(alice, 1_000n);
    assert.deepEqual(said(await call(t, alice, 'transaction/bet', { ...bet, user: bob.user })), ['RS_ERROR_INVALID_TOKEN', undefined]);
    assert.deepEqual(said(await call(t, alice, 'user/balance', { ...bodies.balance(alice), user: bob.user })), [
      'RS_ERROR_INVALID_TOKEN',
      undefined,
    ]);
    const placed = bodies.bet(alice, 1_000n);
    assert.deepEqual(said(await call(t, alice, 'transaction/bet', placed)), ['RS_OK', 9_000n]);
    assert.deepEqual(said(await call(t, alice, 'transaction/win', { ...bodies.win(alice, placed, 5_000n), user: bob.user })), [
      'RS_ERROR_TRANSACTION_DOES_NOT_EXIST',
      undefined,
    ]);
    assert.deepEqual(said(await call(t, alice, 'transaction/rollback', { ...bodies.rollback(alice, placed), user: bob.user })), [
      'RS_ERROR_TRANSACTION_DOES_NOT_EXIST',
      undefined,
    ]);
    assert.deepEqual([await balanceOf(t.db, alice.player.id), await balanceOf(t.db, bob.player.id)], [9_000n, 5_000n]);
    // Named rightly, the same win is paid.
    assert.deepEqual(said(await call(t, alice, 'transaction/win', bodies.win(alice, placed, 5_000n))), ['RS_OK', 14_000n]);
  });

  test('a call refused before the wallet is an HTTP 200 in Hub88’s words with its request echoed, recorded nowhere and moving nothing', async () => {
    const t = ctx();
    const s = await table(t);
    const path = `/api/providers/${s.provider.code}/hub88/transaction/bet`;
    const post = async (raw: string, signature: string | undefined) => {
      const res = await t.app.inject({
        method: 'POST',
        url: path,
        headers: { 'content-type': 'application/json', ...(signature === undefined ? {} : { 'x-hub88-signature': signature }) },
        payload: raw,
      });
      return { status: res.statusCode, json: res.json<Record<string, unknown>>() };
    };
    const bet = bodies.bet(s, 1_000n);
    const raw = JSON.stringify(bet);
    const echo = { user: s.user, request_uuid: bet.request_uuid };
    const cases: [string, string | undefined, string][] = [
      [raw, undefined, 'RS_ERROR_INVALID_SIGNATURE'],
      [raw, signed(raw, rsaKeyPair().privateKey), 'RS_ERROR_INVALID_SIGNATURE'],
      [raw, 'bm90IGEgc2lnbmF0dXJl', 'RS_ERROR_INVALID_SIGNATURE'],
    ];
    for (const [body, signature, status] of cases)
      assert.deepEqual(await post(body, signature), { status: 200, json: { ...echo, status } });

    const refusals: [Record<string, unknown>, string][] = [
      [{ ...bet, token: undefined }, 'RS_ERROR_WRONG_SYNTAX'],
      [{ ...bet, request_uuid: undefined }, 'RS_ERROR_WRONG_SYNTAX'],
      [{ ...bet, amount: '10.00' }, 'RS_ERROR_WRONG_TYPES'],
      [{ ...bet, amount: 1_000_500 }, 'RS_ERROR_WRONG_TYPES'],
      [{ ...bet, amount: -1_000 }, 'RS_ERROR_WRONG_TYPES'],
      [{ ...bet, round_closed: 'yes' }, 'RS_ERROR_WRONG_TYPES'],
      [{ ...bet, is_free: true }, 'RS_ERROR_UNKNOWN'],
    ];
    for (const [body, status] of refusals) {
      const text = JSON.stringify(body);
      const answer = await post(text, signed(text, simulator.hub88.privateKey));
      assert.deepEqual([answer.status, answer.json.status], [200, status], text);
    }
    const garbled = '{"user": "x", "request_uuid": ';
    assert.deepEqual(await post(garbled, signed(garbled, simulator.hub88.privateKey)), {
      status: 200,
      json: { status: 'RS_ERROR_WRONG_SYNTAX' },
    });
    const list = '[1, 2, 3]';
    assert.deepEqual((await post(list, signed(list, simulator.hub88.privateKey))).json, { status: 'RS_ERROR_WRONG_SYNTAX' });

    assert.equal(await balanceOf(t.db, s.player.id), 10_000n);
    assert.deepEqual(await t.db.select().from(providerTransactions).where(eq(providerTransactions.providerId, s.provider.id)), []);
    assert.deepEqual(await t.db.select().from(providerRequests).where(eq(providerRequests.providerId, s.provider.id)), []);
    // And the call itself, signed and whole, is taken.
    assert.deepEqual(said(await call(t, s, 'transaction/bet', bet)), ['RS_OK', 9_000n]);
  });

  test('user/info knows a player once they launched one of the provider’s games: a stranger is RS_ERROR_INVALID_TOKEN, a disabled player RS_ERROR_USER_DISABLED', async () => {
    const t = ctx();
    const s = await table(t);
    const info = await call(t, s, 'user/info', bodies.info(s));
    assert.deepEqual(info.json, { user: s.user, status: 'RS_OK', request_uuid: info.json.request_uuid });
    const stranger = await t.player();
    assert.equal(
      (await call(t, s, 'user/info', { user: `player-${stranger.id}`, request_uuid: requestUuid() })).json.status,
      'RS_ERROR_INVALID_TOKEN',
    );
    assert.equal((await call(t, s, 'user/info', { user: 'john12345', request_uuid: requestUuid() })).json.status, 'RS_ERROR_INVALID_TOKEN');
    await t.db.update(users).set({ status: 0 }).where(eq(users.id, s.player.id));
    assert.equal((await call(t, s, 'user/info', bodies.info(s))).json.status, 'RS_ERROR_USER_DISABLED');
    await t.db.update(providers).set({ status: 0 }).where(eq(providers.id, s.provider.id));
    assert.equal((await call(t, s, 'user/info', bodies.info(s))).json.status, 'RS_ERROR_INVALID_PARTNER');
  });

  test('Hub88’s paths serve hub88 providers only, and the generic wallet path no hub88 provider: 404 either way', async () => {
    const t = ctx();
    const s = await table(t);
    const demo = await createProvider(t);
    const raw = JSON.stringify(bodies.bet(s, 100n));
    const headers = { 'content-type': 'application/json', 'x-hub88-signature': signed(raw, simulator.hub88.privateKey) };
    for (const url of [
      `/api/providers/${demo.code}/hub88/transaction/bet`,
      `/api/providers/${s.provider.code}/wallet/bet`,
      `/api/providers/${s.provider.code}/hub88/transaction/refund`,
      `/api/providers/no-such-provider/hub88/transaction/bet`,
    ]) {
      const res = await t.app.inject({ method: 'POST', url, headers, payload: raw });
      assert.deepEqual([res.statusCode, res.json()], [404, { message: 'Not found.' }], url);
    }
    assert.equal(await balanceOf(t.db, s.player.id), 10_000n);
    tokenOwners.delete(s.token);
  });

  test('answers kept by request_uuid go after 30 days; the bet sent again then is a replay by its transaction id, moving nothing', async () => {
    const t = ctx();
    const s = await table(t);
    const bet = bodies.bet(s, 1_000n);
    assert.deepEqual(said(await call(t, s, 'transaction/bet', bet)), ['RS_OK', 9_000n]);
    assert.deepEqual(said(await call(t, s, 'transaction/bet', bodies.bet(s, 500n))), ['RS_OK', 8_500n]);
    await t.db.execute(sql`update provider_requests set created_at = now() - interval '29 days' where provider_id = ${s.provider.id}`);
    await t.app.housekeeping();
    assert.equal((await t.db.select().from(providerRequests).where(eq(providerRequests.providerId, s.provider.id))).length, 2);
    await t.db.execute(sql`update provider_requests set created_at = now() - interval '31 days' where provider_id = ${s.provider.id}`);
    await t.app.housekeeping();
    assert.deepEqual(await t.db.select().from(providerRequests).where(eq(providerRequests.providerId, s.provider.id)), []);
    // No first answer any more: the transaction id answers, with the balance as it is now.
    assert.deepEqual(said(await call(t, s, 'transaction/bet', bet)), ['RS_OK', 8_500n]);
    assert.equal(await balanceOf(t.db, s.player.id), 8_500n);
  });

  test('ledger:verify is clean after every Hub88 call of this file', async () => {
    assert.deepEqual((await verifyLedger(ctx().db)).problems, []);
  });
});

/** The transaction id of the provider's newest bet. */
async function lastBet(t: TestApp, providerId: number): Promise<string | undefined> {
  const [row] = await rows<{ transaction_id: string }>(
    t.db,
    sql`select transaction_id from provider_transactions where provider_id = ${providerId} and kind = 'bet' order by id desc limit 1`,
  );
  return row?.transaction_id;
}
