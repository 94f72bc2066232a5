import assert from 'node:assert/strict';
import { betOk, openDraw } from '../draws/helpers.ts';
import { createGame, createProvider, demoDriver, launch, send } from '../games/helpers.ts';
import type { SignedIn, TestApp } from '../helpers/app.ts';
import { createTopup, paid, webhook } from '../wallet/helpers.ts';
import { requestWithdrawal } from '../withdrawals/helpers.ts';

/** A record that other records' history refers to: the collection path of its admin delete, and its id. */
export interface KeptRecord {
  path: string;
  id: number;
}

/**
 * A player who did everything a player does, so that the records it touched have children: a
 * paid top-up (payment method 1, a balance, ledger lines), a withdrawal, a round at a provider's
 * game through a launch with a win held over the ceiling, a bet on an in-house game's draw, and a
 * bank card. Made first in a fresh database, these records have the low ids that fuzzed paths name.
 */
export async function playerWithHistory(t: TestApp, admin: SignedIn): Promise<{ player: SignedIn; kept: KeptRecord[] }> {
  const player = await t.player();
  const topup = await createTopup(player.client, 100);
  assert.equal((await webhook(t, paid(topup))).status, 200);
  await requestWithdrawal(player.client, 10);

  const provider = await createProvider(t);
  const providerGame = await createGame(t, provider.id);
  const launched = await launch(t, { userId: player.id, providerId: provider.id, gameId: providerGame.id });
  const opened = await send(t, demoDriver, provider, { action: 'balance', token: launched.token });
  const session = opened.answer?.session ?? '';
  const round = { action: 'bet', token: session, transactionId: 'history-bet', roundId: 'history-round', game: providerGame.code } as const;
  assert.equal((await send(t, demoDriver, provider, { ...round, amount: 100n })).answer?.status, 'OK');
  // A win over the operator's ceiling, held for review, so the held-win routes reach a record.
  assert.equal((await admin.client.put('/api/admin/settings/games', { max_win: 0.5 })).status, 200);
  const held = await send(t, demoDriver, provider, {
    action: 'win',
    transactionId: 'history-win',
    betTransactionId: round.transactionId,
    roundId: round.roundId,
    amount: 100n,
  });
  assert.equal(held.answer?.status, 'WIN_HELD');
  assert.equal((await admin.client.put('/api/admin/settings/games', { max_win: 0 })).status, 200);

  const created = await admin.client.post('/api/admin/games', { name: 'Dice', code: 'history-dice', type: 'dice3' });
  assert.equal(created.status, 201, created.text);
  const game = (created.json as { data: { id: number; code: string } }).data;
  await t.app.drawScheduler.tick(new Date());
  await openDraw(player.client, game.code);
  await betOk(player.client, game.code, 'big', 1);

  const bank = await admin.client.post('/api/admin/banks', { name: 'History Bank', code: 'history', currenry: 'BRL' });
  assert.equal(bank.status, 201, bank.text);
  const bankId = (bank.json as { data: { id: number } }).data.id;
  const card = await admin.client.post('/api/admin/bank-cards', {
    bank_id: bankId,
    user_id: player.id,
    holder_name: 'Player',
    card_number: '4111111111111111',
  });
  assert.equal(card.status, 201, card.text);

  const balances = await admin.client.get(`/api/admin/balances?user_id=${player.id}`);
  const balanceId = (balances.json as { data: { id: number }[] }).data[0]!.id;
  return {
    player,
    kept: [
      { path: '/api/admin/users', id: player.id },
      { path: '/api/admin/balances', id: balanceId },
      { path: '/api/admin/payment-methods', id: 1 },
      { path: '/api/admin/providers', id: provider.id },
      { path: '/api/admin/provider-games', id: providerGame.id },
      { path: '/api/admin/games', id: game.id },
    ],
  };
}
