import { Ajv, type ErrorObject, type SchemaObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { NotFoundError, ValidationError, type FieldErrors } from './errors.ts';
import { emptiedFields, unstorableText } from './input.ts';

// ajv-formats ships CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const ACCEPTED = new Set([true, 1, '1', 'yes', 'on', 'true']);

/** Why text in an input cannot be stored, as the second half of a Laravel-style message. */
const UNSTORABLE_MESSAGES = { nul: 'must not contain null bytes', utf8: 'must be valid UTF-8' } as const;

/** A 422 on the first field of `value` whose key or string PostgreSQL cannot store, if any. */
function unstorableTextError(value: unknown): ValidationError | undefined {
  const found = unstorableText(value);
  if (found === undefined) return undefined;
  return ValidationError.field(found.field, `The ${label(found.field)} field ${UNSTORABLE_MESSAGES[found.problem]}.`);
}

/** A body holding text PostgreSQL cannot store is a 422 on that field, wherever it is headed. */
export function rejectUnstorableText(body: unknown): void {
  const error = unstorableTextError(body);
  if (error !== undefined) throw error;
}

/**
 * On a body schema, the fields a partial update requires when they are sent. Its presence also
 * makes the schema read a field sent as "" or null as present and empty (null), as Laravel does
 * after ConvertEmptyStringsToNull, instead of missing: a field listed here answers "is
 * required", a nullable one becomes null, any other fails its type. See `partialUpdate`.
 */
export const PRESENT_REQUIRED = 'x-required-when-present';

/** The body schema of a partial update (PUT/PATCH) whose create body requires `required`. */
export function partialUpdate<Schema extends object>(schema: Schema, required: readonly string[]): Schema {
  return { ...schema, [PRESENT_REQUIRED]: [...required] };
}

function withEmptyFieldsAsNull(data: Record<string, unknown>, schema: SchemaObject): Record<string, unknown> {
  const properties = (schema.properties as Record<string, unknown> | undefined) ?? {};
  for (const field of emptiedFields(data)) if (Object.hasOwn(properties, field)) data[field] = null;
  return data;
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
const KEYWORD_ORDER = [
  'required',
  PRESENT_REQUIRED,
  'type',
  'format',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'pattern',
  'x-confirmed',
];

function rank(keyword: string): number {
  const index = KEYWORD_ORDER.indexOf(keyword);
  return index === -1 ? KEYWORD_ORDER.length : index;
}

/** Keywords on the object that report one of its fields. */
const FIELD_KEYWORDS = new Set(['x-confirmed', 'x-accepted', PRESENT_REQUIRED]);
/** Laravel stops at a failed "required": an empty field gets that message and no other. */
const PRESENCE_KEYWORDS = new Set(['required', PRESENT_REQUIRED]);

function fieldOf(error: ErrorObject): string {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (error.keyword === 'required') path.push((error.params as { missingProperty: string }).missingProperty);
  if (FIELD_KEYWORDS.has(error.keyword)) path.push((error.params as { field: string }).field);
  return path.join('.');
}

function messageOf(error: ErrorObject, field: string): string {
  const custom = (error.parentSchema as { 'x-message'?: string } | undefined)?.['x-message'];
  if (custom !== undefined && !PRESENCE_KEYWORDS.has(error.keyword)) return custom.replaceAll(':attribute', label(field));
  const name = label(field);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
    case PRESENT_REQUIRED:
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
  const absent = new Set(relevant.filter(({ error }) => PRESENCE_KEYWORDS.has(error.keyword)).map(({ field }) => field));
  for (const { error, field } of relevant) {
    if (absent.has(field) && !PRESENCE_KEYWORDS.has(error.keyword)) continue;
    const message = messageOf(error, field);
    const list = (bag[field] ??= []);
    if (!list.includes(message)) list.push(message);
  }
  return bag;
}

/**
 * Several error bags as one, as Laravel's validator reports them: fields in the order the schema
 * lists them (others after), each field's messages in the order of the bags (the schema's rules
 * first, then the rules checked against the database), each message once.
 */
export function mergeFieldErrors(schema: SchemaObject, ...bags: FieldErrors[]): FieldErrors {
  const order = Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {});
  const rank = (field: string) => (order.includes(field) ? order.indexOf(field) : order.length);
  const fields = [...new Set(bags.flatMap((bag) => Object.keys(bag)))].sort((a, b) => rank(a) - rank(b));
  return Object.fromEntries(fields.map((field) => [field, [...new Set(bags.flatMap((bag) => bag[field] ?? []))]]));
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
    // Infinity (JSON's 1e400) and NaN are not numbers a field can hold.
    strictNumbers: true,
    strict: false,
  });
  addFormats(ajv);
  // `x-confirmed: ['password']`: password_confirmation must equal password (when password is a string).
  ajv.addKeyword(
    fieldKeyword('x-confirmed', (data, field) => typeof data[field] !== 'string' || data[`${field}_confirmation`] === data[field]),
  );
  // `x-accepted: ['agreement']`: Laravel's "accepted" (true, 1, "1", "yes", "on", "true").
  ajv.addKeyword(fieldKeyword('x-accepted', (data, field) => ACCEPTED.has(data[field] as never)));
  ajv.addKeyword(fieldKeyword(PRESENT_REQUIRED, (data, field) => data[field] !== null));
  return ajv;
}

const bodyAjv = createAjv(false);
const queryAjv = createAjv(true);

/** Keys whose values are data, not schemas: left as they are. */
const DATA_KEYS = new Set(['enum', 'const', 'default', 'examples', 'example']);

/**
 * A copy of `schema` whose integers without a bound are held to ±Number.MAX_SAFE_INTEGER, the
 * bounds path ids have: a larger number loses precision here and overflows a BIGINT there, so
 * it is bad input (422, or 404 in a path) and never a database error.
 */
function withSafeIntegers(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withSafeIntegers);
  if (schema === null || typeof schema !== 'object') return schema;
  const node = schema as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = DATA_KEYS.has(key) ? value : withSafeIntegers(value);
  if (node.type === 'integer' || (Array.isArray(node.type) && node.type.includes('integer'))) {
    if (node.maximum === undefined && node.exclusiveMaximum === undefined) out.maximum = Number.MAX_SAFE_INTEGER;
    if (node.minimum === undefined && node.exclusiveMinimum === undefined) out.minimum = -Number.MAX_SAFE_INTEGER;
  }
  return out;
}

/**
 * How an integer is written in a URL: decimal digits without a leading zero, a `-` before a
 * negative one. AJV's coercion reads whatever JavaScript's Number() reads, so `0x10`, ` 1`, `1e1`,
 * `+1`, `1.0` and `0b1` would all be integers, and a path id so spelt would name a record; Laravel's
 * integer rule (PHP's FILTER_VALIDATE_INT) refuses them, `01` too. Path ids have a minimum of 1,
 * so for them this leaves digits only (docs/api.md section 3).
 */
const INTEGER_TEXT = /^(?:0|-?[1-9][0-9]*)$/;

/** The fields of a query or path schema that hold an integer (and nothing else). */
function integerFields(schema: SchemaObject): string[] {
  const properties = (schema.properties as Record<string, { type?: unknown }> | undefined) ?? {};
  return Object.keys(properties).filter((field) => properties[field]?.type === 'integer');
}

/** The integer fields of `data` sent as text that is not a plain decimal integer. */
function misspeltIntegers(data: unknown, fields: readonly string[]): string[] {
  if (fields.length === 0 || data === null || typeof data !== 'object') return [];
  // A repeated query key arrives as an array; AJV reads a one-item array as its item.
  const misspelt = (item: unknown) => typeof item === 'string' && !INTEGER_TEXT.test(item);
  return fields.filter((field) => {
    const value: unknown = (data as Record<string, unknown>)[field];
    return Array.isArray(value) ? value.some(misspelt) : misspelt(value);
  });
}

/** The error AJV reports for `abc` in an integer field, so a misspelt integer reads the same. */
function notAnIntegerError(field: string, schema: SchemaObject): ErrorObject {
  const pointer = field.replaceAll('~', '~0').replaceAll('/', '~1');
  return {
    keyword: 'type',
    instancePath: `/${pointer}`,
    schemaPath: `#/properties/${pointer}/type`,
    params: { type: 'integer' },
    parentSchema: (schema.properties as Record<string, SchemaObject>)[field],
    message: 'must be integer',
  };
}

/**
 * Body types are checked as sent (a number is not a string); query and path values are coerced,
 * an integer only from its plain decimal text (INTEGER_TEXT).
 * Bodies arrive normalised (normalizeInput in input.ts); text PostgreSQL cannot store is refused in a body
 * for every route by the hook that calls rejectUnstorableText, and here in queries and paths.
 */
export const schemaCompiler: FastifySchemaCompiler<SchemaObject> = ({ schema, httpPart }) => {
  // Compiled on the route's first request, not at start (why: src/platform/http/lazy-serializers.ts).
  let compiled: ValidateFunction | undefined;
  const validator = () => (compiled ??= (httpPart === 'body' ? bodyAjv : queryAjv).compile(withSafeIntegers(schema) as SchemaObject));
  const emptyIsPresent = httpPart === 'body' && schema[PRESENT_REQUIRED] !== undefined;
  const integers = httpPart === 'body' ? [] : integerFields(schema);
  const check = (data: unknown) => {
    const validate = validator();
    // Looked at before AJV coerces the values in place.
    const misspelt = misspeltIntegers(data, integers);
    if (validate(data) && misspelt.length === 0) return { value: data };
    // A path that names no record (`/users/abc`) is a missing record, not bad input.
    if (httpPart === 'params') return { error: new NotFoundError() };
    const errors = (validate.errors ?? []).filter((error) => !misspelt.includes(fieldOf(error).split('.')[0] ?? ''));
    return { error: new ValidationError(toFieldErrors([...misspelt.map((field) => notAnIntegerError(field, schema)), ...errors], schema)) };
  };
  const refuse = (error: ValidationError) => ({ error: httpPart === 'params' ? new NotFoundError() : error });
  return (raw: unknown) => {
    if (httpPart === 'body') {
      // A request without a body validates as no input at all.
      const body = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
      return check(emptyIsPresent ? withEmptyFieldsAsNull(body, schema) : body);
    }
    const unstorableText = unstorableTextError(raw);
    if (unstorableText !== undefined) return refuse(unstorableText);
    const result = check(raw);
    const infinite = 'value' in result ? nonFiniteField(result.value) : undefined;
    return infinite === undefined ? result : refuse(notANumberError(infinite, schema));
  };
};

/**
 * A query or path value AJV coerced to Infinity (`1e400`): with strictNumbers its bounds are not
 * even looked at, so it is caught here.
 */
function nonFiniteField(data: unknown): string | undefined {
  if (data === null || typeof data !== 'object') return undefined;
  const infinite = (item: unknown) => typeof item === 'number' && !Number.isFinite(item);
  for (const field of Object.keys(data)) {
    const value: unknown = (data as Record<string, unknown>)[field];
    if (Array.isArray(value) ? value.some(infinite) : infinite(value)) return field;
  }
  return undefined;
}

function notANumberError(field: string, schema: SchemaObject): ValidationError {
  const type = (schema.properties as Record<string, { type?: unknown }> | undefined)?.[field]?.type;
  return ValidationError.field(field, `The ${label(field)} field ${TYPE_MESSAGES[type === 'integer' ? 'integer' : 'number']}.`);
}
