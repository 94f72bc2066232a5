// `npx node bench/i18n.ts`: what answering a refusal in Portuguese costs in the process, per
// message: the look-up of an English text in the catalogue and its rendering (docs/i18n.md),
// and the Accept-Language scan each request makes under APP_LOCALE_NEGOTIATE=on; the translation
// once with the cache of translated texts warm (a refusal answered again) and once cold (every
// text new: the templates are tried in turn). English answers never come here. docs/benchmarks.md.
import { negotiateLocale } from '../src/platform/i18n/locale.ts';
import { translate } from '../src/platform/i18n/translate.ts';

const SAMPLES = [
  'The email field is required.',
  'The password field must be at least 8 characters.',
  'These credentials do not match our records.',
  'This top-up would exceed your daily deposit limit of 200.00: you can deposit 120.50 more today.',
  'The amount must not be greater than your balance of 50.75.',
  'Unauthenticated.',
];

function perCall(label: string, calls: number, text: (i: number) => string): void {
  for (let i = 0; i < 1000; i++) translate(text(i), 'pt_BR');
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) translate(text(i), 'pt_BR');
  const ns = Number(process.hrtime.bigint() - start) / calls;
  console.log(`${label.padEnd(58)} ${(ns / 1000).toFixed(2)} µs per message`);
}

perCall('warm (the same six refusals again and again)', 200_000, (i) => SAMPLES[i % SAMPLES.length]!);
// A new amount each time, so no text is in the cache.
perCall(
  'cold (a deposit-limit refusal with a new amount each time)',
  20_000,
  (i) =>
    `This top-up would exceed your daily deposit limit of 200.00: you can deposit ${i}.${String(i % 100).padStart(2, '0')} more today.`,
);
perCall('cold, the last template tried (an unknown text)', 20_000, (i) => `Some text no catalogue holds ${i}.`);

const HEADER = 'pt-BR,pt;q=0.9,en-US;q=0.8,en;q=0.7';
{
  const calls = 1_000_000;
  let picked = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) if (negotiateLocale(HEADER, 'en') === 'pt_BR') picked++;
  const ns = Number(process.hrtime.bigint() - start) / calls;
  console.log(`${`Accept-Language: ${HEADER}`.padEnd(58)} ${(ns / 1000).toFixed(2)} µs per request (${picked === calls ? 'pt_BR' : '?'})`);
}
