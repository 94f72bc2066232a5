import { Type } from 'typebox';

/** Codes and slugs (docs/api.md section 4): lower-case letters, digits and single hyphens, at least one letter. */
export const SLUG = '^(?=[a-z0-9-]*[a-z])[a-z0-9]+(-[a-z0-9]+)*$';
export const SLUG_MESSAGE = 'The :attribute field must be lower-case letters, digits and single hyphens, with at least one letter.';

/** A code or slug field of a body, at most `maxLength` characters. */
export function slugSchema(maxLength: number) {
  return Type.String({ maxLength, pattern: SLUG, 'x-message': SLUG_MESSAGE });
}

/** The `sort` field of a record an operator orders by hand. */
export const SortField = Type.Integer({ minimum: -1_000_000, maximum: 1_000_000, description: 'Ascending; default 0.' });

/**
 * A status column's field, from the one declaration of its codes (`{ name: code }`, codes
 * consecutive): the accepted range and, in the description, what each code means.
 */
export function codeSchema(codes: Readonly<Record<string, number>>, options: { description?: string; 'x-message'?: string } = {}) {
  const values = Object.values(codes);
  const minimum = Math.min(...values);
  const maximum = Math.max(...values);
  if (new Set(values).size !== values.length || maximum - minimum + 1 !== values.length) {
    throw new Error(`Status codes must be consecutive and distinct: ${JSON.stringify(codes)}`);
  }
  const meaning = describeCodes(codes);
  const description = options.description === undefined ? `${meaning}.` : `${options.description} (${meaning}).`;
  return Type.Integer({ minimum, maximum, ...options, description });
}

/** `0 open, 1 settled, 2 refunded`: what a status column's codes mean, in code order. */
export function describeCodes(codes: Readonly<Record<string, number>>): string {
  return Object.entries(codes)
    .sort(([, a], [, b]) => a - b)
    .map(([name, code]) => `${code} ${name}`)
    .join(', ');
}
