import { sql } from 'drizzle-orm';
import type { TestApp } from './app.ts';

/**
 * Puts the ledger lines a test wrote at the instants it needs (the append-only trigger off for
 * it): every line at `base` first, then each move's lines at its own instant. The daily report's
 * and the dashboard's tests place lines on both sides of a São Paulo midnight this way.
 */
export async function moveLines(t: TestApp, base: string, moves: [condition: ReturnType<typeof sql>, at: string][]): Promise<void> {
  await t.db.execute(sql`alter table ledger_entries disable trigger ledger_entries_no_update`);
  try {
    await t.db.execute(sql`update ledger_entries set created_at = ${base}::timestamptz`);
    for (const [condition, at] of moves)
      await t.db.execute(sql`update ledger_entries set created_at = ${at}::timestamptz where ${condition}`);
  } finally {
    await t.db.execute(sql`alter table ledger_entries enable trigger ledger_entries_no_update`);
  }
}
