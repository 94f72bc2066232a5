import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { en, type MessageKey } from '../../src/platform/i18n/en.ts';
import { negotiateLocale } from '../../src/platform/i18n/locale.ts';
import { pt_BR } from '../../src/platform/i18n/pt_BR.ts';
import { translate } from '../../src/platform/i18n/translate.ts';
import { sentencesIn } from './message-scan.ts';

const root = new URL('../../', import.meta.url).pathname;

/** pt_BR entries that are rightly the English text: none today. */
const SAME_AS_ENGLISH = new Set<MessageKey>([]);

/**
 * Words that give a text away as English. Short words both languages write ("a", "no", "do") are
 * left out; so are the technical terms the Portuguese keeps (token, hash, gateway, string, array).
 */
const ENGLISH_WORDS = new Set(
  (
    'the field must is are and or not you your of be has have been was were with this that cannot can only ' +
    'please try again invalid required selected already amount balance withdrawal top-up bet draw game player ' +
    'payment account password address characters least greater than match does provided code was'
  ).split(' '),
);

/** Placeholders, paths, headers and codes: what a translation keeps as it is. */
function prose(text: string): string[] {
  return (
    text
      .replaceAll(/:[A-Za-z_]+/g, ' ')
      .replaceAll(/(?:PUT|POST|GET|DELETE) \/\S+/g, ' ')
      .replaceAll(/"[^"]*"/g, ' ')
      // Brazil says "QR code" too.
      .replaceAll('QR code', ' ')
      .toLowerCase()
      .split(/[^a-zà-ú-]+/)
      .filter((word) => word !== '')
  );
}

/**
 * Sentences of the source that are not answers: OpenAPI descriptions held in constants or
 * passed to helpers, and two messages composed from parts, whose every composition is an entry
 * (`validation.string`, `validation.integer`, … and `admin.in_use*`; the pt_BR answer tests
 * show them translated).
 */
const NOT_ANSWERS = new Set([
  'REGULATION=br only: the return to player in percent (2 decimals, truncated), the lowest return among its selections at its odds; null when its stored settings do not pass.',
  'Currency units; null: none.',
  'Currency units of net loss (stakes − wins − refunds); null: none.',
  'Currency units of net loss; null: none.',
  'Minutes a signed-in session lasts (1–1440); null: none.',
  'The value that applies from `effective_at` (null: the limit is removed then).',
  'Operation logs are kept for five years under REGULATION=br (Law 14.790/2023, Portaria SPA/MF 1.207/2024) and cannot be deleted.',
  'YYYY-MM-DD, a calendar day in São Paulo: its totals as one object.',
  'With `to`, instead of `date`: the first day of a range (YYYY-MM-DD), its days’ totals as a list.',
  'The range’s last day, included; at most 31 days from `from`.',
  'Only with REGULATION=br (docs/api.md section 14): unverified, pending, verified or rejected.',
  'The player’s identity: unverified (nothing submitted), pending, verified or rejected.',
  'The player’s balance in the withdrawal’s currency now (this withdrawal’s amount already held out of it).',
  'Paid top-ups credited (`topup` lines, gifts not included) after the previous withdrawal and before this one.',
  'Stakes (`bet` lines, draw and provider) less stakes refunded (`bet_refund`) in the same window, never below 0.',
  // Sent to the payer's bank with a PIX return (BACEN allows no accents there): already Portuguese.
  'Devolucao: pagamento nao creditado (valor diferente ou cobranca ja encerrada).',
  'Devolucao: so aceitamos pagamentos de conta do proprio apostador (mesmo CPF).',
  // Composed (validation.ts, admin/in-use.ts).
  'The \u0000 field \u0000.',
  'The \u0000 \u0000 and cannot be deleted\u0000.',
]);

describe('the message catalogue', () => {
  test('every English message has a pt_BR entry, and no pt_BR entry reads as English', () => {
    const problems: string[] = [];
    for (const key of Object.keys(en) as MessageKey[]) {
      const text = (pt_BR as Partial<Record<MessageKey, string>>)[key];
      if (typeof text !== 'string' || text === '') {
        problems.push(`${key}: no pt_BR entry`);
        continue;
      }
      if (text === en[key] && !SAME_AS_ENGLISH.has(key)) problems.push(`${key}: the English text`);
      const english = prose(text).filter((word) => ENGLISH_WORDS.has(word));
      if (english.length > 0) problems.push(`${key}: English words (${english.join(', ')}) in "${text}"`);
      const params = (source: string) => [...new Set(source.match(/:[A-Za-z_]+/g) ?? [])].sort();
      if (params(text).join() !== params(en[key]).join())
        problems.push(`${key}: parameters ${params(text).join()} ≠ ${params(en[key]).join()}`);
    }
    assert.deepEqual(problems, []);
  });

  test('every sentence the source answers with is in the catalogue, so it has its pt_BR', () => {
    const sentences = sentencesIn(root);
    assert.ok(sentences.length > 150, `the scan finds the service's sentences (${sentences.length})`);
    const missing = sentences
      .filter(({ text }) => !NOT_ANSWERS.has(text))
      // A template's `${…}` parts stand for anything: a sample value stands in.
      .filter(({ text }) => translate(text.replaceAll('\u0000', 'x'), 'pt_BR') === text.replaceAll('\u0000', 'x'))
      .map(({ file, line, text }) => `${file}:${line} ${text.replaceAll('\u0000', '${…}')}`);
    assert.deepEqual(missing, [], 'sentences without a catalogue entry (add them to src/platform/i18n/en.ts and pt_BR.ts)');
  });

  test("Laravel's messages come out in the pack's words, with attribute names and amounts in Portuguese", () => {
    assert.equal(translate('The email field is required.', 'pt_BR'), 'O campo e-mail é obrigatório.');
    assert.equal(translate('The password field confirmation does not match.', 'pt_BR'), 'A confirmação para o campo senha não coincide.');
    assert.equal(translate('The email has already been taken.', 'pt_BR'), 'O valor informado para o campo e-mail já está em uso.');
    assert.equal(translate('The amount must be at least 1234.56.', 'pt_BR'), 'O valor deve ser de pelo menos R$\u00a01.234,56.');
    assert.equal(translate('Some text no catalogue holds.', 'pt_BR'), 'Some text no catalogue holds.');
    assert.equal(translate('The email field is required.', 'en'), 'The email field is required.');
  });

  test('Accept-Language picks pt_BR for pt and pt-BR, English for en, APP_LOCALE for anything else', () => {
    assert.equal(negotiateLocale('pt-BR', 'en'), 'pt_BR');
    assert.equal(negotiateLocale('pt', 'en'), 'pt_BR');
    assert.equal(negotiateLocale('pt-PT;q=0.8, fr', 'en'), 'pt_BR');
    assert.equal(negotiateLocale('en-US,en;q=0.9,pt-BR;q=0.8', 'pt_BR'), 'en');
    assert.equal(negotiateLocale('fr-FR, de', 'pt_BR'), 'pt_BR');
    assert.equal(negotiateLocale('fr-FR, de', 'en'), 'en');
    assert.equal(negotiateLocale('pt-BR;q=0, en', 'pt_BR'), 'en');
    assert.equal(negotiateLocale(undefined, 'en'), 'en');
    assert.equal(negotiateLocale('*', 'pt_BR'), 'pt_BR');
  });
});
