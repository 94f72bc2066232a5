import { formatUnits } from '../../platform/money.ts';
import type { RequestOutcomeRow } from './repository.ts';

const money = (value: bigint | null): string => formatUnits(value ?? 0n);

function users(count: number | null): string {
  const n = count ?? 0;
  return `${n} referred ${n === 1 ? 'user' : 'users'}`;
}

/**
 * The 422 messages on `amount` for the limits `request_withdrawal` found unmet (docs/api.md * section 3): each states the requirement and where the user stands. The rules themselves are
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
