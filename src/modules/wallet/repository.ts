import { sql } from 'drizzle-orm';
import { one, rows, type Db } from '../../platform/db/client.ts';
import type { BalanceRow } from './present.ts';

export async function findBalance(db: Db, id: number): Promise<BalanceRow | undefined> {
  return one<BalanceRow>(db, sql`select * from balances where id = ${id}`);
}

/** Every balance of a user, by currency. */
export async function balancesOf(db: Db, userId: number): Promise<BalanceRow[]> {
  return rows<BalanceRow>(db, sql`select * from balances where user_id = ${userId} order by currency`);
}
