import type { FieldErrors } from '../errors.ts';
import { PT_BR_ATTRIBUTES, PT_BR_WORDS } from './attributes.ts';
import { en, type MessageKey } from './en.ts';
import type { Locale } from './locale.ts';
import { pt_BR } from './pt_BR.ts';

/**
 * The answer-side half of the catalogue (docs/i18n.md). The code writes its English as it always
 * has; an answer in another language is the English text looked up in the English catalogue
 * (an exact match first, then the templates with parameters, most specific first) and rendered
 * from that key's entry in the locale's catalogue, each parameter in that language: an attribute
 * through the attribute names, an amount as `R$ 1.234,56`, an instant as São Paulo's date and
 * time, a known word or phrase translated, anything else (an id, a code) as written. English
 * answers never come here.
 */

type Catalogue = Record<MessageKey, string>;
const CATALOGUES: Record<Exclude<Locale, 'en'>, Catalogue> = { pt_BR };
const ATTRIBUTES: Record<Exclude<Locale, 'en'>, Record<string, string>> = { pt_BR: PT_BR_ATTRIBUTES };
const WORDS: Record<Exclude<Locale, 'en'>, Record<string, string>> = { pt_BR: PT_BR_WORDS };
const INTL_TAGS: Record<Exclude<Locale, 'en'>, string> = { pt_BR: 'pt-BR' };

/** Parameters that name a field: translated through the attribute names. */
const FIELD_PARAMS = new Set(['attribute', 'other', 'values']);
/** Parameters that are plain decimals, not money (odds). */
const DECIMAL_PARAMS = new Set(['decimal']);
const MONEY = /^-?\d+\.\d{2}$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/;
const PLACEHOLDER = /:([A-Za-z_]+)/g;

interface Template {
  key: MessageKey;
  regex: RegExp;
  names: string[];
  /** The literal text before the first parameter and after the last, and the longest between: cheap checks before the regex. */
  head: string;
  tail: string;
  longest: string;
}

function escapeRegExp(text: string): string {
  return text.replaceAll(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

function compile(key: MessageKey, text: string): Template {
  const names: string[] = [];
  const literals: string[] = [];
  let source = '';
  let last = 0;
  for (const match of text.matchAll(PLACEHOLDER)) {
    literals.push(text.slice(last, match.index));
    source += escapeRegExp(text.slice(last, match.index));
    source += '(.*?)';
    names.push(match[1]!);
    last = match.index + match[0].length;
  }
  literals.push(text.slice(last));
  source += escapeRegExp(text.slice(last));
  const longest = literals.reduce((a, b) => (b.length > a.length ? b : a), '');
  return { key, regex: new RegExp(`^${source}$`, 's'), names, head: literals[0]!, tail: literals.at(-1)!, longest };
}

const KEYS = Object.keys(en) as MessageKey[];
const EXACT = new Map<string, MessageKey>();
const TEMPLATES: Template[] = [];
for (const key of KEYS) {
  const text = en[key];
  if (text.match(PLACEHOLDER) === null) EXACT.set(text, key);
  else TEMPLATES.push(compile(key, text));
}
// The most literal text first: "at least :min characters." before "at least :min.".
TEMPLATES.sort((a, b) => literalLength(en[b.key]) - literalLength(en[a.key]));
function literalLength(text: string): number {
  return text.replaceAll(PLACEHOLDER, '').length;
}
const PHRASES = TEMPLATES.filter((template) => template.key.startsWith('phrase.'));
const SENTENCES = TEMPLATES.filter((template) => !template.key.startsWith('phrase.'));

/** The key and parameters of an English text, or undefined when the catalogue lacks it. */
export function parse(
  text: string,
  templates: readonly Template[] = SENTENCES,
): { key: MessageKey; params: Record<string, string> } | undefined {
  const exact = EXACT.get(text);
  if (exact !== undefined) return { key: exact, params: {} };
  for (const template of templates) {
    if (!text.startsWith(template.head) || !text.endsWith(template.tail) || !text.includes(template.longest)) continue;
    const match = template.regex.exec(text);
    if (match === null) continue;
    const params: Record<string, string> = {};
    template.names.forEach((name, index) => (params[name] = match[index + 1]!));
    return { key: template.key, params };
  }
  return undefined;
}

const formats = new Map<
  string,
  { money: Intl.NumberFormat; decimal: Intl.NumberFormat; instant: Intl.DateTimeFormat; plural: Intl.PluralRules }
>();
function formatsOf(tag: string) {
  let found = formats.get(tag);
  if (found === undefined) {
    found = {
      money: new Intl.NumberFormat(tag, { style: 'currency', currency: 'BRL' }),
      decimal: new Intl.NumberFormat(tag, { minimumFractionDigits: 2, maximumFractionDigits: 2 }),
      instant: new Intl.DateTimeFormat(tag, { dateStyle: 'short', timeStyle: 'short', timeZone: 'America/Sao_Paulo' }),
      plural: new Intl.PluralRules(tag),
    };
    formats.set(tag, found);
  }
  return found;
}

function attribute(locale: Exclude<Locale, 'en'>, label: string): string {
  const names = ATTRIBUTES[locale];
  // "from and to", "from or to": each field named.
  const parts = label.split(/ (and|or) /);
  if (parts.length > 1) {
    const joiner = { and: ' e ', or: ' ou ' } as Record<string, string>;
    let out = '';
    for (let index = 0; index < parts.length; index += 2)
      out += (index > 0 ? joiner[parts[index - 1]!] : '') + attribute(locale, parts[index]!);
    return out;
  }
  return names[label.replaceAll(' ', '_')] ?? label;
}

function param(locale: Exclude<Locale, 'en'>, name: string, value: string): string {
  if (FIELD_PARAMS.has(name)) return attribute(locale, value);
  const format = formatsOf(INTL_TAGS[locale]);
  if (DECIMAL_PARAMS.has(name) && MONEY.test(value)) return format.decimal.format(Number(value));
  if (MONEY.test(value)) return format.money.format(Number(value));
  if (INSTANT.test(value)) return format.instant.format(new Date(value));
  const word = WORDS[locale][value];
  if (word !== undefined) return word;
  const phrase = parse(value, PHRASES);
  return phrase === undefined ? value : render(locale, phrase.key, phrase.params);
}

/** A key's entry in `locale` with its parameters (still English) put in that language. */
export function render(locale: Exclude<Locale, 'en'>, key: MessageKey, params: Record<string, string>): string {
  const text = choose(CATALOGUES[locale][key], INTL_TAGS[locale], params.count);
  return text.replaceAll(PLACEHOLDER, (whole, name: string) => (name in params ? param(locale, name, params[name]!) : whole));
}

// The same few texts come back again and again (a missing field, a refused limit): remembered.
const CACHE_LIMIT = 4096;
const cache = new Map<string, string>();

/** `text` in `locale`; English (and a text the catalogue lacks) as it is. */
export function translate(text: string, locale: Locale): string {
  if (locale === 'en') return text;
  const cacheKey = `${locale}\u0000${text}`;
  const cached = cache.get(cacheKey);
  if (cached !== undefined) return cached;
  const parsed = parse(text);
  const out = parsed === undefined ? text : render(locale, parsed.key, parsed.params);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(cacheKey, out);
  return out;
}

/** Laravel's trans_choice form "singular|plural": the form the language's plural rules pick for `count`. */
function choose(text: string, tag: string, count: string | number | undefined): string {
  if (!text.includes('|')) return text;
  const [one = text, other = one] = text.split('|');
  return formatsOf(tag).plural.select(Number(count)) === 'one' ? one : other;
}

/** The text of `key` in `locale`, parameters substituted as given (already in that language). */
export function message(locale: Locale, key: MessageKey, params: Record<string, string | number> = {}): string {
  const text = locale === 'en' ? en[key] : choose(CATALOGUES[locale][key], INTL_TAGS[locale], params.count);
  return text.replaceAll(PLACEHOLDER, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

/** An error bag in `locale`. */
export function translateErrors(errors: FieldErrors, locale: Locale): FieldErrors {
  if (locale === 'en') return errors;
  const out: FieldErrors = {};
  for (const [field, messages] of Object.entries(errors)) out[field] = messages.map((text) => translate(text, locale));
  return out;
}

/** Laravel's summary ("first (and N more errors)") of a bag already in `locale`. */
export function summarizeIn(errors: FieldErrors, locale: Exclude<Locale, 'en'>): string {
  const messages = Object.values(errors).flat();
  const [first] = messages;
  if (first === undefined) return CATALOGUES[locale]['validation.invalid'];
  const more = messages.length - 1;
  if (more === 0) return first;
  return `${first} ${render(locale, more === 1 ? 'validation.summary.one' : 'validation.summary.many', { count: String(more) })}`;
}
