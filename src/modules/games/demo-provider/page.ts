import { escapeHtml, htmlPage, pagePolicy } from '../../../platform/http/html.ts';
import type { MessageKey } from '../../../platform/i18n/en.ts';
import { LANGUAGE_TAGS, LOCALES, type Locale } from '../../../platform/i18n/locale.ts';
import { message } from '../../../platform/i18n/translate.ts';
import { displayMoney } from '../../../platform/money.ts';
import { ONE_CHERRY, RTP, THREE_OF_A_KIND, TWO_CHERRIES, type SlotSymbol } from './paytable.ts';
import { SYMBOL_NAMES, symbolSprite, symbolUse, type Drawing } from './symbols.ts';

/*
 * Sizes follow the viewport: the reels share the cabinet's width in three equal columns and stay
 * square, their symbols are a share of the reel, and nothing has a fixed width that could stick
 * out of a 320 px phone (test/browser/pages-look.test.ts checks 320 to 1280 px).
 */
const STYLE = `
*, *::before, *::after { box-sizing: border-box; }
body { margin: 0; min-height: 100vh; font-family: system-ui, sans-serif; color: #f2f2f2; text-align: center;
  background: radial-gradient(ellipse at top, #2a2f3c, #12141a 70%) fixed #12141a; }
main { max-width: 26rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.4rem; margin: .25rem 0 .75rem; letter-spacing: .02em; }
.demo { color: #f5c542; font-size: .85rem; margin: 0 0 .5rem; }
.balance { font-size: 1.1rem; margin: 0 0 .9rem; font-variant-numeric: tabular-nums; }
.sprite { position: absolute; width: 0; height: 0; overflow: hidden; }
.cabinet { max-width: 22rem; margin: 0 auto 1rem; padding: .7rem; border-radius: 1rem;
  background: linear-gradient(#343946, #1d2029); border: 2px solid #e0a100; box-shadow: 0 .5rem 1.5rem rgba(0, 0, 0, .45); }
.reels { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: .5rem; }
.reel { aspect-ratio: 1; border-radius: .6rem; display: grid; place-items: center; overflow: hidden;
  background: linear-gradient(#c9ced8, #fff 24%, #fff 76%, #c9ced8); box-shadow: inset 0 0 0 1px rgba(0, 0, 0, .25); }
.reel .symbol { width: 74%; height: 74%; }
.reel.spinning .symbol { animation: blur .12s linear infinite; }
@keyframes blur { 50% { transform: translateY(6%); opacity: .55; } }
.stake-label { font-size: .85rem; color: #b9bfcc; margin: 0 0 .4rem; }
.stakes { display: flex; justify-content: center; gap: .4rem; flex-wrap: wrap; margin-bottom: .9rem; }
button { font: inherit; border: 0; border-radius: .45rem; padding: .45rem .7rem; background: #2b2f3a; color: inherit; cursor: pointer; }
.stakes button { font-size: .9rem; font-variant-numeric: tabular-nums; }
button.chosen { background: #3a7bd5; }
button.spin { background: #e0a100; color: #1a1a1a; font-weight: 700; font-size: 1.2rem; padding: .6rem 2.6rem; }
button:disabled { opacity: .5; cursor: default; }
button:focus-visible { outline: 2px solid #fff; outline-offset: 2px; }
.message { min-height: 1.5rem; margin: .8rem 0; }
.message.win { color: #6fdc6f; font-weight: 700; }
table { width: 100%; max-width: 22rem; margin: 1.25rem auto 0; border-collapse: collapse; font-size: .85rem; }
caption { color: #b9bfcc; padding-bottom: .4rem; }
td { padding: .3rem .4rem; border-bottom: 1px solid #2b2f3a; text-align: left; }
td.line, td.pays { width: 1%; white-space: nowrap; }
td.pays { text-align: right; font-variant-numeric: tabular-nums; }
.line .symbol { width: 1.5rem; height: 1.5rem; vertical-align: middle; background: #fff; border-radius: .25rem; margin-right: .15rem; }
`;

/** Runs once the page loaded: redeems the launch token, then spins on demand (docs/games.md, "Demo game"). Its texts in `locale`. */
function demoScript(locale: Locale): string {
  const text = (key: MessageKey) => JSON.stringify(message(locale, key));
  return `
(() => {
  ${String(displayMoney)}
  const data = document.body.dataset;
  const names = JSON.parse(data.names);
  const reels = [...document.querySelectorAll('.reel')];
  const balance = document.querySelector('.balance');
  const message = document.querySelector('.message');
  const spinButton = document.querySelector('.spin');
  const stakeButtons = [...document.querySelectorAll('.stakes button')];
  const messages = {
    INSUFFICIENT_FUNDS: ${text('page.demo.insufficient_funds')},
    TOKEN_EXPIRED: ${text('page.demo.token_expired')},
    INVALID_TOKEN: ${text('page.demo.invalid_token')},
    PLAYER_DISABLED: ${text('page.demo.player_disabled')},
    UNSETTLED: ${text('page.demo.unsettled')},
  };
  let session = null;
  let demo = false;
  let currency = data.currency;
  let credits = 0;
  let stake = 1;

  const money = (units) => displayMoney(units, currency);
  const say = (text, win = false) => { message.textContent = text; message.classList.toggle('win', win); };
  const show = (units) => { if (units !== null && units !== undefined) balance.textContent = (demo ? ${text('page.demo.credits')} : ${text('page.demo.balance')}) + money(units); };
  const draw = (reel, symbol) => {
    reel.querySelector('use').setAttribute('href', '#symbol-' + symbol);
    reel.setAttribute('aria-label', names[symbol]);
  };
  const refusal = (status) => messages[status] || ${text('page.demo.unavailable')};
  async function post(path, body) {
    const response = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!response.ok) throw new Error(String(response.status));
    return response.json();
  }

  stakeButtons.forEach((button) => button.addEventListener('click', () => {
    stake = Number(button.dataset.stake);
    stakeButtons.forEach((other) => {
      other.classList.toggle('chosen', other === button);
      other.setAttribute('aria-pressed', String(other === button));
    });
  }));

  spinButton.addEventListener('click', async () => {
    spinButton.disabled = true;
    say('');
    reels.forEach((reel) => reel.classList.add('spinning'));
    try {
      const answer = await post('/games/demo/spin', demo ? { session, stake, credits } : { session, stake });
      if (answer.reels !== null) answer.reels.forEach((symbol, i) => draw(reels[i], symbol));
      if (demo && answer.balance !== null) credits = answer.balance;
      show(answer.balance);
      if (answer.status === 'OK') say(answer.win > 0 ? ${text('page.demo.win')}.replace(':amount', money(answer.win)) : ${text('page.demo.no_win')}, answer.win > 0);
      else if (answer.status === 'WIN_HELD') say(${text('page.demo.win_held')}.replace(':amount', money(answer.win)), true);
      else say(refusal(answer.status));
    } catch {
      say(${text('page.demo.no_answer')});
    } finally {
      reels.forEach((reel) => reel.classList.remove('spinning'));
      spinButton.disabled = session === null;
    }
  });

  (async () => {
    try {
      const answer = await post('/games/demo/open', { token: data.token });
      if (answer.status !== 'OK') { say(refusal(answer.status)); return; }
      session = answer.session;
      demo = answer.demo;
      currency = answer.currency;
      credits = answer.balance;
      document.querySelector('.demo').hidden = !demo;
      stakeButtons.forEach((button) => { button.textContent = money(Number(button.dataset.stake)); });
      show(answer.balance);
      spinButton.disabled = false;
    } catch {
      say(${text('page.demo.link_invalid')});
    }
  })();
})();
`;
}

const SCRIPTS = Object.fromEntries(LOCALES.map((locale) => [locale, demoScript(locale)])) as Record<Locale, string>;

/**
 * The page's Content-Security-Policy: nothing loads from anywhere; the one inline script and
 * style run by their hashes; requests go only to this origin; embedding only by the front end.
 */
export function demoPagePolicy(frameAncestors: string[], locale: Locale = 'en'): string {
  return pagePolicy({ style: STYLE, script: SCRIPTS[locale], connectSelf: true, frameAncestors: ["'self'", ...frameAncestors] });
}

const STAKES = [0.1, 0.5, 1, 2, 5, 10];

function line(drawings: Drawing[], label: string, description: string, pays: number): string {
  const symbols = drawings.map(symbolUse).join('');
  return `<tr><td class="line" role="img" aria-label="${label}">${symbols}</td><td>${description}</td><td class="pays">${pays}×</td></tr>`;
}

function paytableRows(locale: Locale, names: Record<SlotSymbol, string>): string {
  const text = (key: MessageKey, params: Record<string, string> = {}) => escapeHtml(message(locale, key, params));
  const rows = (Object.entries(THREE_OF_A_KIND) as [SlotSymbol, number][]).map(([symbol, pays]) =>
    line(
      [symbol, symbol, symbol],
      text('page.demo.three', { symbols: message(locale, `page.demo.symbols.${symbol}`) }),
      `${escapeHtml(names[symbol])} ×3`,
      pays,
    ),
  );
  rows.push(line(['cherry', 'cherry', 'any'], text('page.demo.two_cherries'), text('page.demo.two_cherries_where'), TWO_CHERRIES));
  rows.push(line(['cherry', 'any', 'any'], text('page.demo.one_cherry'), text('page.demo.one_cherry_where'), ONE_CHERRY));
  return rows.join('\n');
}

function reel(symbol: SlotSymbol, names: Record<SlotSymbol, string>): string {
  return `<div class="reel" role="img" aria-label="${escapeHtml(names[symbol])}">${symbolUse(symbol)}</div>`;
}

/** The symbols' names in `locale` (the English ones are SYMBOL_NAMES). */
function symbolNames(locale: Locale): Record<SlotSymbol, string> {
  if (locale === 'en') return SYMBOL_NAMES;
  const names = {} as Record<SlotSymbol, string>;
  for (const symbol of Object.keys(SYMBOL_NAMES) as SlotSymbol[]) names[symbol] = message(locale, `page.demo.symbol.${symbol}`);
  return names;
}

/**
 * The slot's page for one launch token (already checked to be letters and digits). Stakes are
 * labelled in `currency` (the instance's default) until the session says its own.
 */
export function renderDemoPage(token: string, appName: string, currency: string, locale: Locale = 'en'): string {
  const names = symbolNames(locale);
  const text = (key: MessageKey, params: Record<string, string> = {}) => escapeHtml(message(locale, key, params));
  const rtp = ((Number(RTP.paid) / Number(RTP.staked)) * 100).toFixed(2);
  const stakes = STAKES.map(
    (stake) =>
      `<button type="button" data-stake="${stake}" aria-pressed="${stake === 1}"${stake === 1 ? ' class="chosen"' : ''}>${displayMoney(stake, currency)}</button>`,
  );
  return htmlPage({
    appName,
    title: message(locale, 'page.demo.title'),
    lang: LANGUAGE_TAGS[locale],
    style: STYLE,
    script: SCRIPTS[locale],
    bodyAttributes: { 'data-token': token, 'data-currency': currency, 'data-names': JSON.stringify(names) },
    body: `${symbolSprite()}
<main>
<h1>${text('page.demo.title')}</h1>
<p class="demo" hidden>${text('page.demo.demo_mode')}</p>
<p class="balance">${text('page.demo.loading')}</p>
<div class="cabinet"><div class="reels">${reel('seven', names)}${reel('seven', names)}${reel('seven', names)}</div></div>
<p class="stake-label" id="stake-label">${text('page.demo.stake')}</p>
<div class="stakes" role="group" aria-labelledby="stake-label">${stakes.join('')}</div>
<button type="button" class="spin" disabled>${text('page.demo.spin')}</button>
<p class="message" role="status"></p>
<table>
<caption>${text('page.demo.paytable')}<br>${text('page.demo.rtp', { rtp: locale === 'en' ? rtp : rtp.replace('.', ',') })}&nbsp;%</caption>
${paytableRows(locale, names)}
</table>
</main>`,
  });
}
