import { Ajv, type ErrorObject, type SchemaObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { NotFoundError, ValidationError, type FieldErrors } from './errors.ts';

// ajv-formats ships CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const PASSWORD_FIELDS = new Set(['password', 'password_confirmation', 'current_password']);
const ACCEPTED = new Set([true, 1, '1', 'yes', 'on', 'true']);

/**
 * Laravel's input middleware: strings are trimmed (passwords excepted) and "" or null counts as
 * missing, so a required field left empty reads "is required" rather than a type error.
 */
export function normalizeInput(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalizeInput);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const normalized = typeof item === 'string' && !PASSWORD_FIELDS.has(key) ? item.trim() : normalizeInput(item);
    if (normalized === '' || normalized === null) continue;
    out[key] = normalized;
  }
  return out;
}

function label(field: string): string {
  return field.replaceAll('_', ' ');
}

const TYPE_MESSAGES: Record<string, string> = {
  string: 'must be a string',
  integer: 'must be an integer',
  number: 'must be a number',
  boolean: 'must be true or false',
  array: 'must be an array',
  object: 'must be an object',
};

// Laravel reports a field's rules in the order they are written: presence, type, then the rest.
const KEYWORD_ORDER = ['required', 'type', 'format', 'minLength', 'maxLength', 'minimum', 'maximum', 'pattern', 'x-confirmed'];

function rank(keyword: string): number {
  const index = KEYWORD_ORDER.indexOf(keyword);
  return index === -1 ? KEYWORD_ORDER.length : index;
}

function fieldOf(error: ErrorObject): string {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (error.keyword === 'required') path.push((error.params as { missingProperty: string }).missingProperty);
  if (error.keyword === 'x-confirmed' || error.keyword === 'x-accepted') path.push((error.params as { field: string }).field);
  return path.join('.');
}

function messageOf(error: ErrorObject, field: string): string {
  const custom = (error.parentSchema as { 'x-message'?: string } | undefined)?.['x-message'];
  if (custom !== undefined && error.keyword !== 'required') return custom.replaceAll(':attribute', label(field));
  const name = label(field);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `The ${name} field is required.`;
    case 'type':
      return `The ${name} field ${TYPE_MESSAGES[String(params.type).split(',')[0] ?? ''] ?? 'is invalid'}.`;
    case 'format':
      return params.format === 'email' ? `The ${name} field must be a valid email address.` : `The ${name} field format is invalid.`;
    case 'minLength':
      return `The ${name} field must be at least ${String(params.limit)} characters.`;
    case 'maxLength':
      return `The ${name} field must not be greater than ${String(params.limit)} characters.`;
    case 'minimum':
      return `The ${name} field must be at least ${String(params.limit)}.`;
    case 'exclusiveMinimum':
      return `The ${name} field must be greater than ${String(params.limit)}.`;
    case 'maximum':
      return `The ${name} field must not be greater than ${String(params.limit)}.`;
    case 'minItems':
      return `The ${name} field must have at least ${String(params.limit)} items.`;
    case 'maxItems':
      return `The ${name} field must not have more than ${String(params.limit)} items.`;
    case 'enum':
    case 'const':
      return `The selected ${name} is invalid.`;
    case 'x-confirmed':
      return `The ${name} field confirmation does not match.`;
    case 'x-accepted':
      return `The ${name} field must be accepted.`;
    default:
      return `The ${name} field format is invalid.`;
  }
}

/** Turns AJV's errors into Laravel's error bag, fields in schema order, one message per rule. */
export function toFieldErrors(errors: ErrorObject[], schema: SchemaObject): FieldErrors {
  const order = Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {});
  const position = (field: string): number => {
    const index = order.indexOf(field.split('.')[0] ?? field);
    return index === -1 ? order.length : index;
  };
  const relevant = errors
    // A union's branches each fail; the union's own error speaks for them.
    .filter((error) => !error.schemaPath.includes('/anyOf/') && !error.schemaPath.includes('/oneOf/'))
    .map((error) => ({ error, field: fieldOf(error) }))
    .sort((a, b) => position(a.field) - position(b.field) || rank(a.error.keyword) - rank(b.error.keyword));
  const bag: FieldErrors = {};
  for (const { error, field } of relevant) {
    const message = messageOf(error, field);
    const list = (bag[field] ??= []);
    if (!list.includes(message)) list.push(message);
  }
  return bag;
}

function fieldKeyword(name: string, check: (data: Record<string, unknown>, field: string) => boolean) {
  return {
    keyword: name,
    schemaType: 'array' as const,
    errors: true as const,
    validate: function validate(this: unknown, fields: string[], data: unknown): boolean {
      if (data === null || typeof data !== 'object') return true;
      const failed = fields.filter((field) => !check(data as Record<string, unknown>, field));
      (validate as unknown as { errors: Partial<ErrorObject>[] }).errors = failed.map((field) => ({
        keyword: name,
        params: { field },
        message: name,
      }));
      return failed.length === 0;
    },
  };
}

function createAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    verbose: true,
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: true,
    strict: false,
  });
  addFormats(ajv);
  // `x-confirmed: ['password']`: password_confirmation must equal password (when password is a string).
  ajv.addKeyword(
    fieldKeyword('x-confirmed', (data, field) => typeof data[field] !== 'string' || data[`${field}_confirmation`] === data[field]),
  );
  // `x-accepted: ['agreement']`: Laravel's "accepted" (true, 1, "1", "yes", "on", "true").
  ajv.addKeyword(fieldKeyword('x-accepted', (data, field) => ACCEPTED.has(data[field] as never)));
  return ajv;
}

const bodyAjv = createAjv(false);
const queryAjv = createAjv(true);

/** Body types are checked as sent (a number is not a string); query and path values are coerced. */
export const schemaCompiler: FastifySchemaCompiler<SchemaObject> = ({ schema, httpPart }) => {
  const validate: ValidateFunction = (httpPart === 'body' ? bodyAjv : queryAjv).compile(schema);
  return (raw: unknown) => {
    // Laravel reads a missing body (axios `post(url)`) or a bare JSON scalar as no input at all.
    const data = httpPart === 'body' && (raw === null || typeof raw !== 'object' || Array.isArray(raw)) ? {} : raw;
    if (validate(data)) return { value: data };
    // A path that names no record (`/users/abc`) is a missing record, not bad input.
    if (httpPart === 'params') return { error: new NotFoundError() };
    return { error: new ValidationError(toFieldErrors(validate.errors ?? [], schema)) };
  };
};
