import { and, eq, sql } from 'drizzle-orm';
import type { Regulation } from '../../../config.ts';
import type { IdentityStatus } from '../../../platform/auth/identity.ts';
import type { Db } from '../../../platform/db/client.ts';
import type { RowOf } from '../../../platform/pagination/list.ts';
import type { WalletStatus } from '../adapters/adapter.ts';
import { SESSION_LIFE_S } from '../launch/service.ts';
import { CATALOGUE_STATUS, providers } from '../tables.ts';
import { PROVIDER_BET_STATUS, providerRequests, providerTransactions } from './tables.ts';

const p = (name: string) => sql.placeholder(name);

/**
 * The row every wallet function answers (the type `provider_wallet_answer`,
 * migrations/20261125100000_provider_wallet.sql), declared once: the statements select it, the
 * service reads it, and test/games/wallet-outcomes.test.ts checks it against the type. BIGINTs
 * arrive as text on both drivers; the balance is cents.
 */
export const walletAnswerFields = {
  outcome: sql<WalletStatus>`outcome`,
  replayed: sql<boolean>`replayed`,
  userId: sql<string | null>`user_id`,
  currency: sql<string | null>`currency`,
  // Null stays null: drizzle hands the decoder only values.
  balance: sql<bigint | null>`balance`.mapWith((value: string): bigint | null => BigInt(value)),
  transactionRef: sql<string | null>`transaction_ref`,
  sessionIssued: sql<boolean>`session_issued`,
};

export type WalletAnswerRow = RowOf<typeof walletAnswerFields>;

/**
 * Every wallet statement also keeps its answer under the request id (provider_request_keep,
 * db/functions): `requestId` null for a protocol without request ids, and `bodyHash` the
 * request's canonical body digest. `requestKept` false: a concurrent delivery of the same request
 * id kept its answer first, which is the one to give.
 */
const keptAnswerFields = {
  ...walletAnswerFields,
  requestKept: sql<boolean>`provider_request_keep(${p('providerId')}::bigint, ${p('requestId')}::text, ${p('bodyHash')}::text, a)`,
};

/**
 * What the rules written in TypeScript hand every call (the functions never repeat them): the
 * codes of an enabled provider and game and of a round's states, and the game session's life.
 */
const enabled = sql`${CATALOGUE_STATUS.enabled}::smallint`;
const round = {
  open: sql`${PROVIDER_BET_STATUS.open}::smallint`,
  settled: sql`${PROVIDER_BET_STATUS.settled}::smallint`,
  refunded: sql`${PROVIDER_BET_STATUS.refunded}::smallint`,
};
const sessionLife = sql`${SESSION_LIFE_S}::integer`;
const IDENTITY_VERIFIED: IdentityStatus = 'verified';

/**
 * The wallet functions (db/functions/provider_wallet_*.sql) as named prepared
 * statements: one round trip per callback, parsed and planned once per connection.
 */
export function prepareWalletStatements(db: Db, regulation: Regulation = 'none') {
  // REGULATION=br: a bet needs a verified identity (docs/api.md section 14); null requires none.
  const identityVerified = sql`${regulation === 'br' ? IDENTITY_VERIFIED : null}::text`;
  return {
    balance: db
      .select(keptAnswerFields)
      .from(
        sql`provider_wallet_balance(${p('providerId')}::bigint, ${p('tokenHash')}::text, ${p('sessionHash')}::text, ${enabled},
          ${p('userId')}::bigint) as a`,
      )
      .prepare('provider_wallet_balance'),
    bet: db
      .select(keptAnswerFields)
      .from(
        sql`provider_wallet_bet(${p('providerId')}::bigint, ${p('tokenHash')}::text, ${p('transactionId')}::text, ${p('roundId')}::text,
          ${p('game')}::text, ${p('amount')}::bigint, ${p('currency')}::text, ${p('payload')}::text, ${enabled}, ${round.open}, ${sessionLife},
          ${p('roundClosed')}::boolean, ${round.settled}, ${p('userId')}::bigint, ${identityVerified}) as a`,
      )
      .prepare('provider_wallet_bet'),
    win: db
      .select(keptAnswerFields)
      .from(
        sql`provider_wallet_win(${p('providerId')}::bigint, ${p('transactionId')}::text, ${p('betTransactionId')}::text,
          ${p('roundId')}::text, ${p('amount')}::bigint, ${p('currency')}::text, ${p('roundClosed')}::boolean, ${p('payload')}::text,
          ${enabled}, ${round.open}, ${round.settled}, ${p('userId')}::bigint, ${p('requestPath')}::text, ${p('requestIp')}::text) as a`,
      )
      .prepare('provider_wallet_win'),
    refund: db
      .select(keptAnswerFields)
      .from(
        sql`provider_wallet_refund(${p('providerId')}::bigint, ${p('transactionId')}::text, ${p('betTransactionId')}::text,
          ${p('payload')}::text, ${enabled}, ${round.refunded}, ${p('userId')}::bigint, ${p('rollback')}::boolean) as a`,
      )
      .prepare('provider_wallet_refund'),
    player: db
      .select(keptAnswerFields)
      .from(sql`provider_wallet_player(${p('providerId')}::bigint, ${p('userId')}::bigint, ${enabled}) as a`)
      .prepare('provider_wallet_player'),
    /** What a recorded call moved (cents): a refund records 0 when its bet needed nothing back. */
    recordedAmount: db
      .select({ amount: providerTransactions.amount })
      .from(providerTransactions)
      .where(eq(providerTransactions.id, p('id')))
      .prepare('provider_wallet_recorded_amount'),
  };
}

export type WalletStatements = ReturnType<typeof prepareWalletStatements>;

/**
 * The answers given by request id (`provider_requests`): what a protocol that promises the same
 * answer to the same request (Hub88's `request_uuid`) is answered again. They are kept by the
 * wallet statements themselves (provider_request_keep); this reads them.
 */
export function prepareRequestMemo(db: Db) {
  return {
    find: db
      .select({ bodyHash: providerRequests.bodyHash, answer: providerRequests.answer })
      .from(providerRequests)
      .where(and(eq(providerRequests.providerId, p('providerId')), eq(providerRequests.requestId, p('requestId'))))
      .prepare('provider_request_find'),
  };
}

export type RequestMemo = ReturnType<typeof prepareRequestMemo>;

/** What the wallet needs of a provider: who it is, how it speaks and signs, whether it is enabled. */
const walletProvider = {
  id: providers.id,
  code: providers.code,
  status: providers.status,
  adapter: providers.adapter,
  walletSecret: providers.walletSecret,
  adapterConfig: providers.adapterConfig,
};

export function prepareProviderLookups(db: Db) {
  return {
    byId: db
      .select(walletProvider)
      .from(providers)
      .where(eq(providers.id, p('id')))
      .prepare('wallet_provider_by_id'),
    byCode: db
      .select(walletProvider)
      .from(providers)
      .where(eq(providers.code, p('code')))
      .prepare('wallet_provider_by_code'),
  };
}

export type ProviderLookups = ReturnType<typeof prepareProviderLookups>;
export type WalletProvider = Awaited<ReturnType<ProviderLookups['byId']['execute']>>[number];
