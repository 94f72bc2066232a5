import { formatUnits, toCents } from '../../platform/money.ts';

/** What `request_withdrawal` answers; BIGINTs read as text on both drivers. */
export interface RequestOutcomeRow {
  outcome: string;
  withdrawalId: string | null;
  minRequired: string | null;
  betRequired: string | null;
  betCurrent: string | null;
  referredRequired: string | null;
  referredCurrent: string | null;
  toppedUpRequired: string | null;
  toppedUpCurrent: string | null;
  withdrawal: Record<string, unknown> | string | null;
}

const money = (value: string | null): string => formatUnits(toCents(value ?? '0'));

function users(count: string | null): string {
  const n = Number(count ?? '0');
  return `${n} referred ${n === 1 ? 'user' : 'users'}`;
}

/**
 * The 422 messages on `amount` for the limits `request_withdrawal` found unmet (contract
 * section 3): each states the requirement and where the user stands. The rules themselves are
 * in the database function; this only words its answer.
 */
export function limitRefusals(row: RequestOutcomeRow): string[] {
  const messages: string[] = [];
  if (row.minRequired !== null) messages.push(`The amount must be at least ${money(row.minRequired)}.`);
  if (row.betRequired !== null) {
    messages.push(`You need a total bet turnover of ${money(row.betRequired)} before withdrawing; you have ${money(row.betCurrent)}.`);
  }
  if (row.referredRequired !== null) {
    messages.push(`You need ${users(row.referredRequired)} before withdrawing; you have ${users(row.referredCurrent)}.`);
  }
  if (row.toppedUpRequired !== null) {
    messages.push(
      `You need to have topped up a total of ${money(row.toppedUpRequired)} before withdrawing; you have topped up ${money(row.toppedUpCurrent)}.`,
    );
  }
  return messages;
}
