import QRCode from 'qrcode';
import { escapeHtml, htmlPage, pagePolicy } from '../../platform/http/html.ts';
import type { MessageKey } from '../../platform/i18n/en.ts';
import { LANGUAGE_TAGS, LOCALES, type Locale } from '../../platform/i18n/locale.ts';
import { message, translate } from '../../platform/i18n/translate.ts';
import { displayMoney, toUnits } from '../../platform/money.ts';
import { TOPUP_STATUS, TOPUP_STATUSES, type TopupRow } from './repository.ts';

/** A pending page reloads itself this often, so it shows the payment (or its return) without a click. */
export const PAY_PAGE_REFRESH_S = 10;

/* A card on a phone's whole width, centred on a wider screen; the QR code shrinks with it. */
const STYLE = `
*, *::before, *::after { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; min-height: 100vh; font-family: system-ui, sans-serif; color: #1a1a1a; background: #eef1f5; }
main { max-width: 26rem; margin: 2rem auto; padding: 1.5rem 1.25rem; background: #fff; border-radius: 1rem;
  box-shadow: 0 .25rem 1rem rgba(20, 30, 50, .12); text-align: center; }
@media (max-width: 28rem) { main { margin: 0; border-radius: 0; box-shadow: none; min-height: 100vh; } }
h1 { font-size: 1.2rem; font-weight: 600; margin: 0 0 .25rem; color: #444; }
.amount { font-size: 2.2rem; font-weight: 700; margin: 0 0 .75rem; font-variant-numeric: tabular-nums; }
.status { display: inline-block; margin: 0; padding: .25rem .8rem; border-radius: 1rem; font-size: .9rem; background: #eceff3; color: #444; }
.status.pending { background: #fff1cc; color: #6b4a00; }
.status.paid { background: #daf3e1; color: #17602e; }
.qr { display: block; width: 100%; max-width: 280px; height: auto; margin: 1.25rem auto .5rem; }
.hint { margin: .5rem 0; color: #444; font-size: .95rem; }
.code { display: block; padding: .6rem .75rem; border-radius: .5rem; background: #f3f4f6; border: 1px solid #d5d9e0;
  font-family: ui-monospace, monospace; font-size: .8rem; line-height: 1.45; text-align: left; word-break: break-all;
  -webkit-user-select: all; user-select: all; }
.copy { width: 100%; margin-top: .75rem; font: inherit; font-weight: 600; border: 0; border-radius: .5rem; padding: .7rem 1rem;
  background: #0f766e; color: #fff; cursor: pointer; }
.copy:hover { background: #115e59; }
.copy:focus-visible { outline: 3px solid #1a1a1a; outline-offset: 2px; }
.copy-result { min-height: 1.3rem; margin: .5rem 0 -.5rem; font-size: .9rem; color: #17602e; }
.expiry { margin: .75rem 0 0; color: #444; font-size: .95rem; font-variant-numeric: tabular-nums; }
.reason { margin: .75rem 0 0; color: #444; font-size: .95rem; }
`;

/**
 * The copy button (shown only when this runs, so a page without script has no dead button: the
 * code stays selectable text). The Clipboard API first; where it is missing or refused (plain
 * HTTP outside localhost, an old browser), select the code and try the older copy command; if
 * that fails too, the code is left selected for the device's own copy.
 */
function payScript(locale: Locale): string {
  const text = (key: MessageKey) => JSON.stringify(message(locale, key));
  return `
(() => {
  // The expiry countdown: the seconds left, as the server wrote them, down to 0, then a reload shows "Expired".
  const left = document.querySelector('.expiry time');
  if (left !== null) {
    const until = Date.now() + Number(left.dataset.seconds) * 1000;
    const tick = () => {
      const seconds = Math.max(0, Math.round((until - Date.now()) / 1000));
      const two = (n) => String(n).padStart(2, '0');
      left.textContent = two(Math.floor(seconds / 3600)) + ':' + two(Math.floor(seconds / 60) % 60) + ':' + two(seconds % 60);
      if (seconds === 0) location.reload();
    };
    setInterval(tick, 1000);
  }
  const code = document.getElementById('pix-code');
  const button = document.querySelector('.copy');
  const result = document.querySelector('.copy-result');
  if (code === null || button === null || result === null) return;
  button.hidden = false;
  const select = () => {
    const range = document.createRange();
    range.selectNodeContents(code);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  };
  const clipboard = async () => {
    try { await navigator.clipboard.writeText(code.textContent); return true; } catch { return false; }
  };
  const command = () => {
    select();
    try { return document.execCommand('copy'); } catch { return false; }
  };
  button.addEventListener('click', async () => {
    if ((await clipboard()) || command()) {
      button.textContent = ${text('page.pay.copied')};
      result.textContent = ${text('page.pay.copied_result')};
    } else {
      result.textContent = ${text('page.pay.selected_result')};
    }
  });
})();
`;
}

const SCRIPTS = Object.fromEntries(LOCALES.map((locale) => [locale, payScript(locale)])) as Record<Locale, string>;

/** The payment page's Content-Security-Policy in each language: its own style and script, the QR code's data: URL, no framing. */
export const PAY_PAGE_POLICIES = Object.fromEntries(
  LOCALES.map((locale) => [locale, pagePolicy({ style: STYLE, script: SCRIPTS[locale], images: 'data:', frameAncestors: [] })]),
) as Record<Locale, string>;

/** "00:14:59": hours, minutes and seconds left, as the script counts them down. */
function clock(seconds: number): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(Math.floor(seconds / 3600))}:${two(Math.floor(seconds / 60) % 60)}:${two(seconds % 60)}`;
}

/**
 * The payment page of a top-up in `locale`: the amount as a Brazilian reads it, its status, the QR
 * code as an inline SVG data URL, the copy-and-paste code with its copy button and the time left
 * to pay (`expiresInS`, counted down by the script). While pending it reloads itself every
 * PAY_PAGE_REFRESH_S seconds, so it turns to paid, or to returned with the reason, by itself.
 * Every value is escaped; the page loads nothing from anywhere.
 */
export async function renderPayPage(topup: TopupRow, appName: string, locale: Locale = 'en', expiresInS?: number): Promise<string> {
  const status = TOPUP_STATUSES.nameOf(topup.status);
  const text = (key: MessageKey) => escapeHtml(message(locale, key));
  let body = `<p class="status ${status}">${text(`page.pay.status.${status}`)}</p>`;
  if (topup.status === TOPUP_STATUS.returned && topup.reason !== null) {
    body += `\n<p class="reason">${text('page.pay.reason')} ${escapeHtml(translate(topup.reason, locale))}</p>`;
  }
  const pending = topup.status === TOPUP_STATUS.pending;
  if (pending && topup.qr_code !== null) {
    const svg = await QRCode.toString(topup.qr_code, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    const image = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
    body += `
<img class="qr" src="${image}" width="280" height="280" alt="${text('page.pay.qr_alt')}">
<p class="hint" id="code-label">${text('page.pay.hint')}</p>
<code class="code" id="pix-code">${escapeHtml(topup.qr_code)}</code>
<button type="button" class="copy" hidden>${text('page.pay.copy')}</button>
<p class="copy-result" role="status"></p>`;
  }
  // Only while time is left: at 0 the script reloads, and the page then says it expired.
  if (pending && expiresInS !== undefined && Math.floor(expiresInS) > 0) {
    const seconds = Math.floor(expiresInS);
    body += `\n<p class="expiry">${text('page.pay.expires')} <time data-seconds="${seconds}">${clock(seconds)}</time></p>`;
  }
  return htmlPage({
    appName,
    title: message(locale, 'page.pay.title'),
    lang: LANGUAGE_TAGS[locale],
    refreshS: pending ? PAY_PAGE_REFRESH_S : undefined,
    style: STYLE,
    script: SCRIPTS[locale],
    body: `<main>
<h1>${text('page.pay.title')}</h1>
<p class="amount">${escapeHtml(displayMoney(toUnits(topup.amount), topup.currency))}</p>
${body}
</main>`,
  });
}
