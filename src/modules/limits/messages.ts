import { DomainError, ValidationError } from '../../platform/errors.ts';
import { formatUnits } from '../../platform/money.ts';
import type { Refusal } from './repository.ts';

/** 403 of section 14's responsible gambling: a self-excluded or listed player, or one without limits. */
export class PlayRefusedError extends DomainError {
  readonly status = 403;
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

export const LIMITS_UNSET = 'Set your loss and time limits before you deposit or play.';

const WHEN = { daily: 'today', weekly: 'this week', monthly: 'this month' } as const;

/** "until 2026-12-01T03:00:00.000Z" (ISO 8601, UTC), or "permanently". */
export function exclusionMessage(until: Date | null): string {
  return until === null ? 'Your account is self-excluded permanently.' : `Your account is self-excluded until ${until.toISOString()}.`;
}

export const LISTED = 'Your CPF is on the national self-exclusion list.';

/** The refusal as the player reads it: 403 for exclusions and missing limits, 422 on `amount` for a limit. */
export function refusalError(refusal: Refusal, kind: 'bet' | 'top-up'): DomainError {
  switch (refusal.reason) {
    case 'self_excluded':
      return new PlayRefusedError('self_excluded', exclusionMessage(refusal.until));
    case 'listed':
      return new PlayRefusedError('nationally_excluded', LISTED);
    case 'limits_unset':
      return new PlayRefusedError('limits_unset', LIMITS_UNSET);
    case 'loss_limit': {
      const period = refusal.period!;
      const limit = formatUnits(refusal.limitCents!);
      const left = formatUnits(refusal.leftCents!);
      return ValidationError.field(
        'amount',
        kind === 'bet'
          ? `This bet would exceed your ${period} loss limit of ${limit}: you can stake ${left} more ${WHEN[period]}.`
          : `This top-up would exceed your ${period} deposit limit of ${limit}: you can deposit ${left} more ${WHEN[period]}.`,
      );
    }
  }
}
