import { ValidationError } from '../../platform/errors.ts';
import { isAtLeast, isCalendarDate, saoPauloDate } from '../../platform/sao-paulo.ts';
import { cpfDigits } from '../withdrawals/pix-key.ts';

/** The age of majority, counted in São Paulo's calendar (docs/regulation.md). */
export const MINIMUM_AGE = 18;
const MAX_NAME = 255;

export interface IdentityInput {
  cpf: string;
  fullName: string;
  birthDate: string;
}

/** One space between words, none around: how a name is stored and compared. */
export function normalName(raw: string): string {
  return raw.trim().replace(/\s+/g, ' ');
}

/**
 * The submission's own rules (docs/api.md section 14), every problem at once: a CPF with its
 * check digits, a full name of two words or more, a real birth date 18 or more years before
 * today in São Paulo (the 18th birthday itself passes). Whether another user holds the CPF is
 * the service's, in its transaction.
 */
export function parseIdentity(body: { cpf: string; full_name: string; birth_date: string }, now: Date): IdentityInput {
  const errors: Record<string, string[]> = {};
  const cpf = cpfDigits(body.cpf);
  if (cpf === undefined) errors.cpf = ['The cpf is not a valid CPF.'];
  const fullName = normalName(body.full_name);
  if (fullName.length > MAX_NAME) errors.full_name = [`The full name must not be longer than ${MAX_NAME} characters.`];
  else if (fullName.split(' ').filter((word) => /\p{L}/u.test(word)).length < 2) {
    errors.full_name = ['The full name must have at least two words.'];
  }
  const birthDate = body.birth_date.trim();
  const today = saoPauloDate(now);
  if (!isCalendarDate(birthDate) || birthDate < '1900-01-01' || birthDate > today) {
    errors.birth_date = ['The birth date is not a valid date.'];
  } else if (!isAtLeast(birthDate, MINIMUM_AGE, today)) {
    errors.birth_date = [`You must be at least ${MINIMUM_AGE} years old.`];
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return { cpf: cpf!, fullName, birthDate };
}
