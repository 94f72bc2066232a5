import { BodyTooDeepError } from './errors.ts';

/**
 * Request input as it enters, before any schema looks at it: Laravel's normalisation, and the
 * limits that keep hostile input from costing the process its stack or reaching PostgreSQL in a
 * form it refuses. Validation messages for what is found here live in validation.ts.
 */

const PASSWORD_FIELDS = new Set(['password', 'password_confirmation', 'current_password']);

/**
 * Deeper than any body this API reads (three levels) by a wide margin, and shallow enough that
 * nothing that walks a body (normalisation, the operation log's redaction, JSON.stringify,
 * PostgreSQL's jsonb) can run out of stack on it.
 */
export const MAX_INPUT_DEPTH = 64;

/** Whether objects and arrays nest deeper than `limit`; iterative, so the depth costs no stack. */
export function nestsDeeperThan(value: unknown, limit = MAX_INPUT_DEPTH): boolean {
  const pending: [object, number][] = value !== null && typeof value === 'object' ? [[value, 1]] : [];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [current, depth] = next;
    if (depth > limit) return true;
    for (const item of Object.values(current)) if (item !== null && typeof item === 'object') pending.push([item as object, depth + 1]);
  }
  return false;
}

/**
 * What PostgreSQL cannot store of a string: a NUL (refused by text and jsonb alike) or a lone
 * surrogate, which is not UTF-8 at all (jsonb refuses its escape, PHP's json_decode the body).
 */
function problemOf(text: string): 'nul' | 'utf8' | undefined {
  if (text.includes('\0')) return 'nul';
  if (!text.isWellFormed()) return 'utf8';
  return undefined;
}

/**
 * The first field (Laravel's dotted path), in the order the fields were sent, whose key or string
 * PostgreSQL cannot store; `undefined` when every one can be stored.
 */
export function unstorableText(value: unknown): { field: string; problem: 'nul' | 'utf8' } | undefined {
  // Every request's query and path pass here: the walk that names the field runs only when a
  // cheaper one, which builds no paths, has found something.
  return holdsUnstorableText(value) ? firstUnstorableText(value) : undefined;
}

function holdsUnstorableText(value: unknown): boolean {
  if (typeof value === 'string') return problemOf(value) !== undefined;
  if (value === null || typeof value !== 'object') return false;
  const pending: object[] = [value];
  for (let current = pending.pop(); current !== undefined; current = pending.pop()) {
    for (const key of Object.keys(current)) {
      if (problemOf(key) !== undefined) return true;
      const item: unknown = (current as Record<string, unknown>)[key];
      if (typeof item === 'string') {
        if (problemOf(item) !== undefined) return true;
      } else if (item !== null && typeof item === 'object') pending.push(item);
    }
  }
  return false;
}

function firstUnstorableText(value: unknown): { field: string; problem: 'nul' | 'utf8' } | undefined {
  const pending: [unknown, string[]][] = [[value, []]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [current, path] = next;
    const problem = problemOf(path.at(-1) ?? '') ?? (typeof current === 'string' ? problemOf(current) : undefined);
    if (problem !== undefined) return { field: path.join('.'), problem };
    if (current === null || typeof current !== 'object') continue;
    // Pushed last to first, so they are popped first to last.
    for (const [key, item] of Object.entries(current).reverse()) pending.push([item, [...path, key]]);
  }
  return undefined;
}

/** Top-level fields the normaliser dropped as empty, by the body it returned. */
const emptied = new WeakMap<object, string[]>();

/** The top-level fields of a normalised body that were sent as "" or null. */
export function emptiedFields(body: object): string[] {
  return emptied.get(body) ?? [];
}

/**
 * Laravel's input middleware: strings are trimmed (passwords excepted) and "" or null counts as
 * missing, so a required field left empty reads "is required" rather than a type error (a partial
 * update reads them back through `emptiedFields`). A bare JSON scalar or array, or a body that is
 * not JSON, is no input at all. A body nested deeper than MAX_INPUT_DEPTH is refused unwalked.
 */
export function normalizeInput(value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  if (nestsDeeperThan(value)) throw new BodyTooDeepError();
  const dropped: string[] = [];
  const out = normalizeObject(value, dropped);
  if (dropped.length > 0) emptied.set(out, dropped);
  return out;
}

function normalizeValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalizeValue);
  if (value === null || typeof value !== 'object') return value;
  return normalizeObject(value);
}

function normalizeObject(value: object, dropped?: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    // As the JSON parser does: an own `__proto__` key would set the copy's prototype.
    if (key === '__proto__') continue;
    const normalized = typeof item === 'string' && !PASSWORD_FIELDS.has(key) ? item.trim() : normalizeValue(item);
    if (normalized === '' || normalized === null) {
      dropped?.push(key);
      continue;
    }
    out[key] = normalized;
  }
  return out;
}
