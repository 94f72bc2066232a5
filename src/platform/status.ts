import { Type, type TInteger } from 'typebox';

/** A record's status codes as declared once (`statusCodes`). */
export interface StatusCodes<N extends string> {
  /** Each name's code: what is stored, what the API shows, what SQL functions are passed. */
  readonly code: { readonly [K in N]: number };
  /** The name of a code, for messages ("a withdrawal that is pending…"); `unknown` for none. */
  nameOf(code: number): N | 'unknown';
  /** `0 pending, 1 paid, …`: the schema description of the field. */
  readonly description: string;
  /** The `status` query filter over every code. */
  readonly filter: TInteger;
}

/**
 * A record's statuses, declared once: the names in code order (from `first`), each with what it
 * means to a reader. The codes, the names in messages, the API description and the filter all
 * come from here, and SQL functions are passed the codes they compare with or write, so no
 * status is spelt as a bare number anywhere else (docs/architecture.md, "Where today's money
 * rule lives"). The migrations' check constraints keep the numbers they were written with:
 * they are history, and docs/api.md fixes the codes anyway.
 */
export function statusCodes<const M extends Record<string, string>>(meanings: M, first = 0): StatusCodes<keyof M & string> {
  const names = Object.keys(meanings) as (keyof M & string)[];
  return {
    code: Object.fromEntries(names.map((name, index) => [name, first + index])) as { [K in keyof M & string]: number },
    nameOf: (code) => names[code - first] ?? 'unknown',
    description: `${names.map((name, index) => `${first + index} ${meanings[name]}`).join(', ')}.`,
    filter: Type.Integer({ minimum: first, maximum: first + names.length - 1, 'x-message': 'The selected :attribute is invalid.' }),
  };
}
