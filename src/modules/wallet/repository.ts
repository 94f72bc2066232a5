import { asc, eq } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.ts';
import { balances, type Balance } from './tables.ts';

export async function findBalance(db: Db, id: number): Promise<Balance | undefined> {
  const [row] = await db.select().from(balances).where(eq(balances.id, id));
  return row;
}

/** Every balance of a user, by currency. */
export async function balancesOf(db: Db, userId: number): Promise<Balance[]> {
  return db.select().from(balances).where(eq(balances.userId, userId)).orderBy(asc(balances.currency));
}
