import { ValidationError } from '../../../platform/errors.ts';
import { moneyProblem, type MoneyRule } from '../../../platform/money.ts';

/** Transaction and round ids: printable ASCII without spaces, as long as the wallet stores. */
const ID = /^[\x21-\x7e]{1,100}$/;
const CURRENCY = /^[A-Z]{3}$/;

/**
 * Reads the fields of a provider's JSON body with Laravel-style messages, collecting every
 * problem before answering one 422 (docs/api.md section 3). Adapters name the fields as their wire
 * format does.
 */
export class BodyReader {
  readonly #body: Record<string, unknown>;
  readonly #errors: Record<string, string[]> = {};

  constructor(body: unknown) {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw ValidationError.field('body', 'The body must be a JSON object.');
    }
    this.#body = body as Record<string, unknown>;
  }

  #fail(field: string, message: string): void {
    (this.#errors[field] ??= []).push(message);
  }

  #present(field: string): unknown {
    const value = Object.hasOwn(this.#body, field) ? this.#body[field] : undefined;
    if (value === undefined || value === null || value === '') {
      this.#fail(field, `The ${field.replaceAll('_', ' ')} field is required.`);
      return undefined;
    }
    return value;
  }

  /** A token: any string of 1 to 255 characters. */
  token(field: string): string {
    const value = this.#present(field);
    if (value === undefined) return '';
    if (typeof value !== 'string' || value.length > 255) {
      this.#fail(field, `The ${field.replaceAll('_', ' ')} field must be a string of at most 255 characters.`);
      return '';
    }
    return value;
  }

  /** A transaction or round id (a number is read as its decimal text). */
  id(field: string): string {
    const value = this.#present(field);
    if (value === undefined) return '';
    const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
    if (typeof text !== 'string' || !ID.test(text)) {
      this.#fail(field, `The ${field.replaceAll('_', ' ')} field must be 1 to 100 printable characters without spaces.`);
      return '';
    }
    return text;
  }

  /** Money in currency units (a number or a numeric string, at most 2 decimals), as cents. */
  units(field: string, rule: MoneyRule): bigint {
    const value = this.#present(field);
    if (value === undefined) return 0n;
    const outcome = moneyProblem(field, value, rule);
    if (typeof outcome === 'string') {
      this.#fail(field, outcome);
      return 0n;
    }
    return outcome.cents;
  }

  /** Money as an integer count of `perCent` minor units (e.g. 1000 for amounts in 1/100,000), as cents. */
  scaled(field: string, perCent: bigint, rule: { min: bigint }): bigint {
    const value = this.#present(field);
    if (value === undefined) return 0n;
    const name = field.replaceAll('_', ' ');
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
      this.#fail(field, `The ${name} field must be an integer.`);
      return 0n;
    }
    const amount = BigInt(value);
    if (amount % perCent !== 0n) {
      this.#fail(field, `The ${name} field must be a whole number of cents.`);
      return 0n;
    }
    const cents = amount / perCent;
    if (cents < rule.min) this.#fail(field, `The ${name} field must be at least ${rule.min * perCent}.`);
    return cents;
  }

  currency(field: string): string {
    const value = this.#present(field);
    if (value === undefined) return '';
    if (typeof value !== 'string' || !CURRENCY.test(value)) {
      this.#fail(field, `The ${field.replaceAll('_', ' ')} field must be a 3-letter upper-case currency code.`);
      return '';
    }
    return value;
  }

  /** An optional boolean (absent is false). */
  flag(field: string): boolean {
    const value = this.#body[field];
    if (value === undefined || value === null) return false;
    if (typeof value !== 'boolean') {
      this.#fail(field, `The ${field.replaceAll('_', ' ')} field must be true or false.`);
      return false;
    }
    return value;
  }

  /** Throws the 422 with every problem found; call once every field was read. */
  done(): void {
    if (Object.keys(this.#errors).length > 0) throw new ValidationError(this.#errors);
  }
}
