import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../../platform/db/client.ts';
import { providers } from '../tables.ts';
import { providerTransactions } from './tables.ts';

const p = (name: string) => sql.placeholder(name);

/** The columns every wallet function answers (type provider_wallet_answer); BIGINTs read as text on both drivers. */
const answer = {
  outcome: sql<string>`outcome`,
  replayed: sql<boolean>`replayed`,
  userId: sql<string | null>`user_id`,
  currency: sql<string | null>`currency`,
  balance: sql<string | null>`balance`,
  transactionRef: sql<string | null>`transaction_ref`,
  sessionIssued: sql<boolean>`session_issued`,
};

export interface WalletAnswerRow {
  outcome: string;
  replayed: boolean;
  userId: string | null;
  currency: string | null;
  balance: string | null;
  transactionRef: string | null;
  sessionIssued: boolean;
}

/**
 * The wallet functions (db/functions/provider_wallet_*.sql) as named prepared
 * statements: one round trip per callback, parsed and planned once per connection.
 */
export function prepareWalletStatements(db: Db) {
  return {
    balance: db
      .select(answer)
      .from(sql`provider_wallet_balance(${p('providerId')}::bigint, ${p('tokenHash')}::text, ${p('sessionHash')}::text)`)
      .prepare('provider_wallet_balance'),
    bet: db
      .select(answer)
      .from(
        sql`provider_wallet_bet(${p('providerId')}::bigint, ${p('tokenHash')}::text, ${p('transactionId')}::text, ${p('roundId')}::text,
          ${p('game')}::text, ${p('amount')}::bigint, ${p('currency')}::text, ${p('payload')}::text)`,
      )
      .prepare('provider_wallet_bet'),
    win: db
      .select(answer)
      .from(
        sql`provider_wallet_win(${p('providerId')}::bigint, ${p('transactionId')}::text, ${p('betTransactionId')}::text,
          ${p('roundId')}::text, ${p('amount')}::bigint, ${p('currency')}::text, ${p('roundClosed')}::boolean, ${p('payload')}::text)`,
      )
      .prepare('provider_wallet_win'),
    refund: db
      .select(answer)
      .from(
        sql`provider_wallet_refund(${p('providerId')}::bigint, ${p('transactionId')}::text, ${p('betTransactionId')}::text,
          ${p('payload')}::text)`,
      )
      .prepare('provider_wallet_refund'),
    /** What a recorded call moved (cents): a refund records 0 when its bet needed nothing back. */
    recordedAmount: db
      .select({ amount: providerTransactions.amount })
      .from(providerTransactions)
      .where(eq(providerTransactions.id, p('id')))
      .prepare('provider_wallet_recorded_amount'),
  };
}

export type WalletStatements = ReturnType<typeof prepareWalletStatements>;

/** What the wallet needs of a provider: who it is, how it speaks and signs, whether it is enabled. */
const walletProvider = {
  id: providers.id,
  code: providers.code,
  status: providers.status,
  adapter: providers.adapter,
  walletSecret: providers.walletSecret,
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
