import { sql } from 'drizzle-orm';
import { one, type Db } from '../../platform/db/client.ts';
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

export interface SettingsVersion {
  /** Row id: what a computed record stores to say which version it used. */
  id: number;
  version: number;
  value: StoredSettings;
}

interface VersionRow {
  id: number | string;
  version: number | string;
  value: StoredSettings | string;
}

function toVersion(row: VersionRow): SettingsVersion {
  return {
    id: Number(row.id),
    version: Number(row.version),
    value: typeof row.value === 'string' ? (JSON.parse(row.value) as StoredSettings) : row.value,
  };
}

/** The version in force now (as seen by `db`, which may be the caller's transaction). */
export async function currentSettings(db: Db, name: SettingName): Promise<SettingsVersion> {
  const row = await one<VersionRow>(db, sql`select id, version, value from settings where name = ${name} order by version desc limit 1`);
  if (row === undefined) throw new Error(`Settings "${name}" have no version; the wallet migration seeds one.`);
  return toVersion(row);
}

/** Stores `value` as the next version. The table lock makes concurrent saves take turns. */
export async function insertSettingsVersion(
  tx: Db,
  name: SettingName,
  value: StoredSettings,
  userId: number | null,
): Promise<SettingsVersion> {
  await tx.execute(sql`lock table settings in share row exclusive mode`);
  const row = await one<VersionRow>(
    tx,
    sql`insert into settings (name, version, value, created_by)
      select ${name}, coalesce(max(version), 0) + 1, ${JSON.stringify(value)}::jsonb, ${userId}
      from settings where name = ${name}
      returning id, version, value`,
  );
  return toVersion(row!);
}

export async function currentReferralSettings(db: Db): Promise<{ id: number; settings: ReferralSettings }> {
  const version = await currentSettings(db, 'referral');
  return { id: version.id, settings: referralSettings(version.value) };
}

export async function currentTopupSettings(db: Db): Promise<{ id: number; settings: TopupSettings }> {
  const version = await currentSettings(db, 'topup');
  return { id: version.id, settings: topupSettings(version.value) };
}

/** For the withdrawal rules: read inside the withdrawal's transaction so the version is the one applied. */
export async function currentWithdrawSettings(db: Db): Promise<{ id: number; settings: WithdrawSettings }> {
  const version = await currentSettings(db, 'withdraw');
  return { id: version.id, settings: withdrawSettings(version.value) };
}
