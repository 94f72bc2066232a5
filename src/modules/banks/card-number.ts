/** Separators people type inside card numbers; anything else that is not a digit is refused. */
const SEPARATORS = /[\s-]/g;

/** The card number as digits only, or undefined when it is not 12–19 digits. */
export function normalizeCardNumber(raw: string): string | undefined {
  const digits = raw.replace(SEPARATORS, '');
  return /^\d{12,19}$/.test(digits) ? digits : undefined;
}

/** The Luhn (mod 10) check digit test of payment card numbers (ISO/IEC 7812). */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** How a card number is shown: `**** **** **** 1234`. */
export function maskCardNumber(last4: string): string {
  return `**** **** **** ${last4}`;
}
