import { asc, eq } from 'drizzle-orm';
import type { Db } from '../../../platform/db/client.ts';
import { providerBets, providerTransactions, type ProviderBet, type ProviderTransaction } from '../seamless-wallet/tables.ts';

export interface RoundWithCalls {
  round: ProviderBet;
  /** The round's money calls, oldest first. */
  calls: ProviderTransaction[];
}

/**
 * What operators read of the rounds the seamless wallet records (the lists are declared in
 * routes.ts through the platform's list helpers): one round with its calls and their stored
 * bodies, for disputes.
 */
export class ProviderBetService {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** The round `id` with its calls; undefined when there is none. */
  async roundWithCalls(id: number): Promise<RoundWithCalls | undefined> {
    const [round] = await this.#db.select().from(providerBets).where(eq(providerBets.id, id));
    if (round === undefined) return undefined;
    const calls = await this.#db
      .select()
      .from(providerTransactions)
      .where(eq(providerTransactions.providerBetId, id))
      .orderBy(asc(providerTransactions.id));
    return { round, calls };
  }
}
