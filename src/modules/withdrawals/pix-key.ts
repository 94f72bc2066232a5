/**
 * PIX keys as DICT stores them (reference section 3.2): each type has one canonical form, and a
 * string that is not a key of its type gets a sentence saying what is wrong (a 422 on
 * `payee_account`). Pure functions: nothing here throws, whatever the input.
 */
export const PIX_KEY_TYPES = ['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'EVP'] as const;
export type PixKeyType = (typeof PIX_KEY_TYPES)[number];

export type PixKeyResult = { key: string } | { error: string };

const MAX_INPUT = 100;
const MAX_EMAIL = 77;

/** Brazil's area codes (DDD) in use, per ANATEL's numbering plan. */
const AREA_CODES = new Set([
  11, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 24, 27, 28, 31, 32, 33, 34, 35, 37, 38, 41, 42, 43, 44, 45, 46, 47, 48, 49, 51, 53, 54, 55,
  61, 62, 63, 64, 65, 66, 67, 68, 69, 71, 73, 74, 75, 77, 79, 81, 82, 83, 84, 85, 86, 87, 88, 89, 91, 92, 93, 94, 95, 96, 97, 98, 99,
]);

const invalid = (what: string, why: string): PixKeyResult => ({ error: `The payee account is not a valid ${what}: ${why}.` });

function allEqual(text: string): boolean {
  return [...text].every((char) => char === text[0]);
}

/** A check digit of the CPF/CNPJ family: Σ value × weight, mod 11, by each document's rule. */
function weightedSum(text: string, weights: number[]): number {
  let sum = 0;
  for (let i = 0; i < weights.length; i++) sum += (text.charCodeAt(i) - 48) * weights[i]!;
  return sum;
}

function cpf(raw: string): PixKeyResult {
  const digits = raw.replace(/[.\-\s]/g, '');
  if (!/^[0-9]{11}$/.test(digits)) return invalid('CPF', 'it must have 11 digits');
  if (allEqual(digits)) return invalid('CPF', 'its digits cannot all be the same');
  const check = (length: number) => {
    const weights = Array.from({ length }, (_, i) => length + 1 - i);
    const rest = (weightedSum(digits, weights) * 10) % 11;
    return rest === 10 ? 0 : rest;
  };
  if (check(9) !== Number(digits[9]) || check(10) !== Number(digits[10])) return invalid('CPF', 'the check digits do not match');
  return { key: digits };
}

/**
 * A CPF's 11 digits when `raw` is a valid CPF (punctuation allowed), undefined otherwise: the
 * one check-digit rule, shared by PIX keys and the player's identity (docs/api.md section 14).
 */
export function cpfDigits(raw: string): string | undefined {
  const result = cpf(typeof raw === 'string' ? raw.trim() : '');
  return 'key' in result ? result.key : undefined;
}

const CNPJ_WEIGHTS = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];

function cnpj(raw: string): PixKeyResult {
  const text = raw.replace(/[./\-\s]/g, '').toUpperCase();
  if (!/^[0-9A-Z]{12}[0-9]{2}$/.test(text)) {
    return invalid('CNPJ', 'it must have 14 characters, 12 letters or digits followed by 2 digits');
  }
  if (allEqual(text)) return invalid('CNPJ', 'its characters cannot all be the same');
  const check = (length: number) => {
    const rest = weightedSum(text, CNPJ_WEIGHTS.slice(13 - length)) % 11;
    return rest < 2 ? 0 : 11 - rest;
  };
  if (check(12) !== Number(text[12]) || check(13) !== Number(text[13])) return invalid('CNPJ', 'the check digits do not match');
  return { key: text };
}

const EMAIL = /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/;

function email(raw: string): PixKeyResult {
  const text = raw.toLowerCase();
  if (text.length > MAX_EMAIL) return invalid('e-mail key', `it must not be longer than ${MAX_EMAIL} characters`);
  if (!EMAIL.test(text) || text.startsWith('.') || text.includes('..') || text.split('@')[0]!.endsWith('.')) {
    return invalid('e-mail key', 'it must be an address such as name@example.com');
  }
  return { key: text };
}

function phone(raw: string): PixKeyResult {
  const compact = raw.replace(/[\s().-]/g, '');
  if (!/^\+?[0-9]+$/.test(compact)) return invalid('phone key', 'it must contain only digits, with an optional leading +');
  let national: string;
  if (compact.startsWith('+')) {
    if (!compact.startsWith('+55')) return invalid('phone key', 'it must be a Brazilian mobile number (+55)');
    national = compact.slice(3);
  } else if (compact.length === 13 && compact.startsWith('55')) {
    national = compact.slice(2);
  } else {
    national = compact;
  }
  if (national.length === 10)
    return invalid('phone key', 'it looks like a landline; a PIX phone key is a mobile number (9 digits after the area code)');
  if (national.length !== 11) return invalid('phone key', 'it must be a 2-digit area code followed by a 9-digit mobile number');
  if (!AREA_CODES.has(Number(national.slice(0, 2)))) return invalid('phone key', `${national.slice(0, 2)} is not a Brazilian area code`);
  if (national[2] !== '9') return invalid('phone key', 'a mobile number starts with 9 after the area code');
  return { key: `+55${national}` };
}

function evp(raw: string): PixKeyResult {
  const text = raw.toLowerCase();
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(text)) {
    return invalid('random key (EVP)', 'it must be a UUID such as 123e4567-e89b-12d3-a456-426614174000');
  }
  return { key: text };
}

const NORMALIZERS: Record<PixKeyType, (raw: string) => PixKeyResult> = { CPF: cpf, CNPJ: cnpj, EMAIL: email, PHONE: phone, EVP: evp };

/** The key in its canonical DICT form, or the reason it is not a key of that type. */
export function normalizePixKey(type: PixKeyType, raw: string): PixKeyResult {
  const normalize = Object.hasOwn(NORMALIZERS, type) ? NORMALIZERS[type] : undefined;
  if (normalize === undefined) return { error: 'The selected account type is invalid.' };
  const text = typeof raw === 'string' ? raw.trim() : '';
  if (text === '') return { error: 'The payee account field is required.' };
  if (text.length > MAX_INPUT) return { error: `The payee account must not be longer than ${MAX_INPUT} characters.` };
  return normalize(text);
}
