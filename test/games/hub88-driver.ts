// The conformance kit's driver for Hub88 (adapter `hub88`): the kit's calls in our terms,
// written as the Hub88 simulator sends them (test/games/hub88-simulator.ts): Hub88's paths and
// field names, amounts in 1/100,000 of the unit, `user` naming the player, a fresh request_uuid
// for each call, the body signed with Hub88's key; answers read back after the simulator checked
// them against Hub88's documented response.
import { randomUUID } from 'node:crypto';
import { sealConfig } from '../../src/modules/games/adapters/config.ts';
import { HUB88_CONFIG } from '../../src/modules/games/hub88/config.ts';
import { CARRIES_BALANCE, HUB88_STATUS, hub88User } from '../../src/modules/games/hub88/wire.ts';
import { Keyring } from '../../src/platform/crypto.ts';
import type { Response } from '../helpers/app.ts';
import { betTokens, createProvider, tokenOwners, type KitCall, type WalletDriver } from './helpers.ts';
import { checkAnswer, PER_CENT, rsaKeyPair, signed, type Hub88Path, type Hub88Simulator } from './hub88-simulator.ts';

const PATHS: Record<KitCall['action'], Hub88Path> = {
  balance: 'user/balance',
  bet: 'transaction/bet',
  win: 'transaction/win',
  refund: 'transaction/rollback',
};

/** The bets the driver placed, for the round and game Hub88 repeats in their wins and rollbacks. */
const placed = new Map<string, { round: string; game: string }>();

/** The `user` of a call: the owner of its token, or of its bet's token; `player-0` (nobody) when neither is known. */
function userOf(token: string | undefined): string {
  return hub88User((token === undefined ? undefined : tokenOwners.get(token)) ?? 0);
}

const refusedIn = (res: Response, statuses: string[]) =>
  res.status === 200 && statuses.includes((res.json as { status?: string } | undefined)?.status ?? '');

export function hub88Driver(simulator: Hub88Simulator): WalletDriver {
  const stranger = rsaKeyPair().privateKey;
  return {
    adapter: 'hub88',
    body(call) {
      const request_uuid = randomUUID();
      switch (call.action) {
        case 'balance':
          return { user: userOf(call.token), token: call.token, request_uuid, game_code: null };
        case 'bet':
          placed.set(call.transactionId, { round: call.roundId, game: call.game });
          betTokens.set(call.transactionId, call.token);
          return {
            user: userOf(call.token),
            transaction_uuid: call.transactionId,
            supplier_transaction_id: `supplier-${call.transactionId}`,
            token: call.token,
            round_closed: false,
            round: call.roundId,
            reward_uuid: null,
            request_uuid,
            is_free: false,
            is_aggregated: false,
            game_code: call.game,
            currency: call.currency ?? 'BRL',
            bet: null,
            amount: Number(call.amount * PER_CENT),
            meta: {},
          };
        case 'win': {
          const token = betTokens.get(call.betTransactionId);
          return {
            user: userOf(token),
            transaction_uuid: call.transactionId,
            supplier_transaction_id: `supplier-${call.transactionId}`,
            ...(token === undefined ? {} : { token }),
            round_closed: call.roundClosed ?? false,
            round: call.roundId,
            reward_uuid: null,
            request_uuid,
            reference_transaction_uuid: call.betTransactionId,
            is_free: false,
            is_aggregated: false,
            game_code: placed.get(call.betTransactionId)?.game ?? 'unknown_game',
            currency: call.currency ?? 'BRL',
            bet: null,
            amount: Number(call.amount * PER_CENT),
            meta: {},
          };
        }
        case 'refund': {
          const token = betTokens.get(call.betTransactionId);
          const bet = placed.get(call.betTransactionId);
          return {
            user: userOf(token),
            transaction_uuid: call.transactionId,
            supplier_transaction_id: `supplier-${call.transactionId}`,
            ...(token === undefined ? {} : { token }),
            round_closed: false,
            ...(bet === undefined ? {} : { round: bet.round, game_code: bet.game }),
            request_uuid,
            reference_transaction_uuid: call.betTransactionId,
            meta: {},
          };
        }
      }
    },
    headers: (secret, raw) => ({ 'x-hub88-signature': signed(raw, secret) }),
    read(json) {
      // What Hub88 accepts of any wallet answer (the echoes are checked by the simulator's own calls).
      checkAnswer('transaction/bet', {}, json);
      const balance = json.balance;
      return {
        status: json.status as string,
        balance: typeof balance === 'number' ? BigInt(balance) / PER_CENT : null,
        session: undefined,
      };
    },
    path: (provider, action) => `/api/providers/${provider}/hub88/${PATHS[action]}`,
    async createProvider(t, options) {
      const config = options.keyless === true ? undefined : sealConfig(HUB88_CONFIG, simulator.config(), new Keyring(t.config.appKey));
      const provider = await createProvider(t, { adapter: 'hub88', status: options.status, secret: null, adapterConfig: config });
      return { ...provider, secret: simulator.hub88.privateKey };
    },
    otherSecret: stranger,
    launchToken: 'session',
    timestamped: false,
    word: (status) => HUB88_STATUS[status],
    carriesBalance: (status) => CARRIES_BALANCE.has(HUB88_STATUS[status]),
    refusedSignature: (res) => refusedIn(res, ['RS_ERROR_INVALID_SIGNATURE']),
    refusedBody: (res) => refusedIn(res, ['RS_ERROR_WRONG_SYNTAX', 'RS_ERROR_WRONG_TYPES']),
  };
}
