// The Central Bank's API Pix specification (test/pix/api-pix/openapi.yaml, version 2.9.0,
// Apache 2.0, unchanged) as JSON Schema validators: the simulator checks every answer it gives
// and every request body it takes against them, so it can never agree with something the
// standard does not say.
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const SPEC = new URL('../api-pix/openapi.yaml', import.meta.url);

interface OpenApi {
  components: { schemas: Record<string, Record<string, unknown>>; requestBodies: Record<string, unknown> };
}

/** Every `location` property whose format is `uri`: a location is written without a scheme. */
function relaxLocations(value: unknown): void {
  if (value === null || typeof value !== 'object') return;
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const schema = item as { format?: string } | null;
    if (key === 'location' && schema !== null && typeof schema === 'object' && schema.format === 'uri') schema.format = 'uri-reference';
    relaxLocations(item);
  }
}

/**
 * Three known defects of the spec are corrected here, and only these (test/pix/api-pix/README.md):
 * - `PixConsultados` requires `cobs` but its only list is `pix` (what `GET /pix` answers);
 * - CPF patterns are written `/^\d{11}$/`, slashes included, which no CPF can match;
 * - a charge's `location` has format `uri`, yet every example (and the BR Code, tag 26 id 25)
 *   writes it without a scheme (`pix.example.com/qr/v2/…`): read as a URI reference.
 */
function corrected(spec: OpenApi): OpenApi {
  const schemas = spec.components.schemas;
  schemas.PixConsultados = { ...schemas.PixConsultados, required: ['parametros'] };
  const text = JSON.stringify(spec).replaceAll('"/^\\\\d{11}$/"', '"^\\\\d{11}$"');
  const fixed = JSON.parse(text) as OpenApi;
  relaxLocations(fixed.components.schemas);
  return fixed;
}

function load(): Ajv {
  const spec = corrected(parse(readFileSync(SPEC, 'utf8')) as OpenApi);
  const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: true });
  addFormats(ajv);
  for (const format of ['int32', 'int64']) ajv.addFormat(format, true);
  ajv.addSchema(spec, 'api-pix');
  return ajv;
}

let ajv: Ajv | undefined;
const cache = new Map<string, ValidateFunction>();

/** The validator of `#/components/schemas/<name>` (or any JSON pointer into the spec). */
export function schema(pointer: string): ValidateFunction {
  const ref = pointer.startsWith('#') ? pointer : `#/components/schemas/${pointer}`;
  let validate = cache.get(ref);
  if (validate === undefined) {
    ajv ??= load();
    validate = ajv.getSchema(`api-pix${ref}`);
    if (validate === undefined) throw new Error(`No schema ${ref} in the API Pix spec.`);
    cache.set(ref, validate);
  }
  return validate;
}

/** The violations of `value` against `pointer`, as `propriedade` / `razao` pairs (empty when it passes). */
export function violations(pointer: string, value: unknown): { propriedade: string; razao: string }[] {
  const validate = schema(pointer);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((error) => ({
    propriedade: error.instancePath.replace(/^\//, '').replaceAll('/', '.') || '(corpo)',
    razao: error.message ?? error.keyword,
  }));
}
