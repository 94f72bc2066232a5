import type { Regulation } from '../../config.ts';
import type { FieldErrors } from '../../platform/errors.ts';
import type { SettingName, StoredSettings } from './definitions.ts';

/**
 * Law 14.790/2023, art. 29 forbids any advance bonus (docs/regulation.md): under REGULATION=br
 * the referral rewards and the top-up gifts are 0. This file is that rule, in both its halves:
 * a PUT may not set them (`bonusRefusals`), and values stored earlier are not applied
 * (`bonusesInForce`, which the one settings reader, repository.ts `currentSettings`, applies to
 * what every money path and the admin's GET read). pay_topup is passed the gifts computed from
 * what this answers, so it writes no gift or referral line.
 */
const BONUS_FIELDS: Partial<Record<SettingName, string[]>> = {
  referral: ['bonus', 'topped_up_bonus', 'topped_up_bonus_rate'],
  topup: ['gift_rate_first_time', 'gift_rate'],
};

export const ART_29 = 'is not allowed under Law 14.790/2023, art. 29.';

const label = (field: string) => `The ${field.replaceAll('_', ' ').replaceAll('.', ' ')}`;

function options(stored: StoredSettings): { value: number; rate: number }[] {
  const value = stored.options;
  return Array.isArray(value) ? value : [];
}

/** The settings as they apply: under `br` every bonus field and option rate reads 0. */
export function bonusesInForce(name: SettingName, stored: StoredSettings, regulation: Regulation): StoredSettings {
  const fields = BONUS_FIELDS[name];
  if (regulation !== 'br' || fields === undefined) return stored;
  const zeroed: StoredSettings = { ...stored, ...Object.fromEntries(fields.map((field) => [field, 0])) };
  if (name === 'topup') zeroed.options = options(stored).map((option) => ({ value: option.value, rate: 0 }));
  return zeroed;
}

/** Under `br`, a 422 message for each bonus field a PUT sets to anything but 0 (in stored form). */
export function bonusRefusals(name: SettingName, stored: StoredSettings, regulation: Regulation): FieldErrors {
  const fields = BONUS_FIELDS[name];
  if (regulation !== 'br' || fields === undefined) return {};
  const errors: FieldErrors = {};
  for (const field of fields) if (stored[field] !== 0) errors[field] = [`${label(field)} ${ART_29}`];
  if (name === 'topup') {
    options(stored).forEach((option, index) => {
      if (option.rate !== 0) errors[`options.${index}.rate`] = [`The options.${index}.rate ${ART_29}`];
    });
  }
  return errors;
}
