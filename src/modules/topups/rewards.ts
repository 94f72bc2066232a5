import { percentOf } from '../../platform/money.ts';
import type { ReferralSettings, TopupSettings } from '../settings/definitions.ts';

/**
 * The gift rate of a paid top-up (docs/wallet.md, "Gifts"):
 * - first paid top-up of the user: `gift_rate_first_time`, otherwise `gift_rate`;
 * - an amount equal to an option's `value` uses that option's `rate` instead of `gift_rate`,
 *   and instead of the first-time rate only when the option's rate is larger.
 */
export function giftRate(settings: TopupSettings, amount: bigint, firstPaid: boolean): bigint {
  const option = settings.options.find((candidate) => candidate.value === amount);
  if (firstPaid) {
    return option !== undefined && option.rate > settings.giftRateFirstTime ? option.rate : settings.giftRateFirstTime;
  }
  return option !== undefined ? option.rate : settings.giftRate;
}

export function giftAmount(settings: TopupSettings, amount: bigint, firstPaid: boolean): bigint {
  return percentOf(amount, giftRate(settings, amount, firstPaid));
}

/** The referrer's reward for a referred user's paid top-up: the fixed part plus the rate part. */
export function referralTopupReward(settings: ReferralSettings, amount: bigint): bigint {
  return settings.toppedUpBonus + percentOf(amount, settings.toppedUpBonusRate);
}
