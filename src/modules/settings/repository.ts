import { desc, eq, sql } from 'drizzle-orm';
import type { Regulation } from '../../config.ts';
import type { Db } from '../../platform/db/client.ts';
import { bonusesInForce } from './bonuses.ts';
import {
  referralSettings,
  topupSettings,
  withdrawSettings,
  type ReferralSettings,
  type SettingName,
  type StoredSettings,
  type TopupSettings,
  type WithdrawSettings,
} from './definitions.ts';
import { settings } from './tables.ts';

export interface SettingsVersion {
  /** Row id: what a computed record stores to say which version it used. */
  id: number;
  version: number;
  value: StoredSettings;
}

const VERSION = { id: settings.id, version: settings.version, value: settings.value };

/**
 * The version in force now (as seen by `db`, which may be the caller's transaction), as it
 * applies under `regulation`: under `br` its bonuses read 0 (bonuses.ts). Every reader of
 * settings in TypeScript comes through here; `games.max_win` is read by the SQL that applies it
 * (definitions.ts).
 */
export async function currentSettings(db: Db, name: SettingName, regulation: Regulation = 'none'): Promise<SettingsVersion> {
  const [row] = await db.select(VERSION).from(settings).where(eq(settings.name, name)).orderBy(desc(settings.version)).limit(1);
  if (row === undefined) throw new Error(`Settings "${name}" have no version; the wallet migration seeds one.`);
  return { ...row, value: bonusesInForce(name, row.value, regulation) };
}

/** Stores `value` as the next version. The table lock makes concurrent saves take turns. */
export async function insertSettingsVersion(
  tx: Db,
  name: SettingName,
  value: StoredSettings,
  userId: number | null,
): Promise<SettingsVersion> {
  await tx.execute(sql`lock table settings in share row exclusive mode`);
  const [row] = await tx
    .insert(settings)
    .values({
      name,
      version: sql`(select coalesce(max(${settings.version}), 0) + 1 from ${settings} where ${settings.name} = ${name})`,
      value,
      createdBy: userId,
    })
    .returning(VERSION);
  return row!;
}

export async function currentReferralSettings(
  db: Db,
  regulation: Regulation = 'none',
): Promise<{ id: number; settings: ReferralSettings }> {
  const version = await currentSettings(db, 'referral', regulation);
  return { id: version.id, settings: referralSettings(version.value) };
}

export async function currentTopupSettings(db: Db, regulation: Regulation = 'none'): Promise<{ id: number; settings: TopupSettings }> {
  const version = await currentSettings(db, 'topup', regulation);
  return { id: version.id, settings: topupSettings(version.value) };
}

/** For the withdrawal rules: read inside the withdrawal's transaction so the version is the one applied. */
export async function currentWithdrawSettings(db: Db): Promise<{ id: number; settings: WithdrawSettings }> {
  const version = await currentSettings(db, 'withdraw');
  return { id: version.id, settings: withdrawSettings(version.value) };
}
