import { createHash } from 'node:crypto';
import { escapeHtml } from '../../../platform/http/html.ts';
import { ONE_CHERRY, RTP, THREE_OF_A_KIND, TWO_CHERRIES, type SlotSymbol } from './paytable.ts';

/** How the page draws each symbol (text only: the page loads nothing from anywhere). */
export const GLYPHS: Record<SlotSymbol, string> = { seven: '7', bar: 'BAR', bell: '🔔', melon: '🍉', lemon: '🍋', cherry: '🍒' };
const NAMES: Record<SlotSymbol, string> = { seven: 'Seven', bar: 'Bar', bell: 'Bell', melon: 'Melon', lemon: 'Lemon', cherry: 'Cherry' };

const STYLE = `
body { font-family: system-ui, sans-serif; background: #14161c; color: #f2f2f2; margin: 0; padding: 1rem; text-align: center; }
h1 { font-size: 1.4rem; margin: .5rem 0 1rem; }
.balance { font-size: 1.1rem; margin-bottom: 1rem; }
.reels { display: flex; justify-content: center; gap: .6rem; margin: 0 auto 1rem; }
.reel { width: 5.5rem; height: 5.5rem; border-radius: .6rem; background: #fff; color: #1a1a1a; font-size: 2.6rem; font-weight: 700;
  display: flex; align-items: center; justify-content: center; }
.reel.spinning { animation: blur .12s linear infinite; }
@keyframes blur { 50% { transform: translateY(4px); opacity: .6; } }
.stakes { display: flex; justify-content: center; gap: .4rem; flex-wrap: wrap; margin-bottom: .8rem; }
button { font: inherit; border: 0; border-radius: .4rem; padding: .45rem .8rem; background: #2b2f3a; color: inherit; cursor: pointer; }
button.chosen { background: #3a7bd5; }
button.spin { background: #e0a100; color: #1a1a1a; font-weight: 700; font-size: 1.2rem; padding: .6rem 2.4rem; }
button:disabled { opacity: .5; cursor: default; }
.message { min-height: 1.5rem; margin: .8rem 0; }
.message.win { color: #6fdc6f; font-weight: 700; }
table { margin: 1rem auto 0; border-collapse: collapse; font-size: .9rem; }
td, th { padding: .2rem .8rem; border-bottom: 1px solid #2b2f3a; }
.demo { color: #e0a100; font-size: .85rem; }
`;

/** Runs once the page loaded: redeems the launch token, then spins on demand (docs/games.md, "Demo game"). */
const SCRIPT = `
(() => {
  const data = document.body.dataset;
  const glyphs = JSON.parse(data.glyphs);
  const reels = [...document.querySelectorAll('.reel')];
  const balance = document.querySelector('.balance');
  const message = document.querySelector('.message');
  const spinButton = document.querySelector('.spin');
  const stakeButtons = [...document.querySelectorAll('.stakes button')];
  const messages = {
    INSUFFICIENT_FUNDS: 'Not enough balance for this stake.',
    TOKEN_EXPIRED: 'This game session has ended. Launch the game again.',
    INVALID_TOKEN: 'This game link was already used or is not valid. Launch the game again.',
    PLAYER_DISABLED: 'Your account is disabled.',
    UNSETTLED: 'The round could not be settled yet; it shows in your bets.',
  };
  let session = null;
  let demo = false;
  let currency = 'BRL';
  let credits = 0;
  let stake = 1;

  const money = (units) => new Intl.NumberFormat('pt-BR', { style: 'currency', currency }).format(units);
  const say = (text, win = false) => { message.textContent = text; message.classList.toggle('win', win); };
  const show = (units) => { if (units !== null && units !== undefined) balance.textContent = (demo ? 'Play credits: ' : 'Balance: ') + money(units); };
  const refusal = (status) => messages[status] || 'The game is not available right now.';
  async function post(path, body) {
    const response = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!response.ok) throw new Error(String(response.status));
    return response.json();
  }

  stakeButtons.forEach((button) => button.addEventListener('click', () => {
    stake = Number(button.dataset.stake);
    stakeButtons.forEach((other) => other.classList.toggle('chosen', other === button));
  }));

  spinButton.addEventListener('click', async () => {
    spinButton.disabled = true;
    say('');
    reels.forEach((reel) => reel.classList.add('spinning'));
    try {
      const answer = await post('/games/demo/spin', demo ? { session, stake, credits } : { session, stake });
      if (answer.status === 'OK' || answer.status === 'UNSETTLED') {
        answer.reels.forEach((symbol, i) => { reels[i].textContent = glyphs[symbol]; });
      }
      if (demo && answer.balance !== null) credits = answer.balance;
      show(answer.balance);
      if (answer.status === 'OK') say(answer.win > 0 ? 'You win ' + money(answer.win) + '!' : 'No win this time.', answer.win > 0);
      else say(refusal(answer.status));
    } catch {
      say('The game server did not answer. Please try again.');
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
      show(answer.balance);
      spinButton.disabled = false;
    } catch {
      say('This game link is not valid. Launch the game again.');
    }
  })();
})();
`;

const digest = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/**
 * The page's Content-Security-Policy: nothing loads from anywhere; the one inline script and
 * style run by their hashes; requests go only to this origin; embedding only by the front end.
 */
export function demoPagePolicy(frameAncestors: string[]): string {
  return [
    "default-src 'none'",
    `script-src ${digest(SCRIPT)}`,
    `style-src ${digest(STYLE)}`,
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors 'self' ${frameAncestors.join(' ')}`.trim(),
  ].join('; ');
}

const STAKES = [0.1, 0.5, 1, 2, 5, 10];

function paytableRows(): string {
  const rows = (Object.entries(THREE_OF_A_KIND) as [SlotSymbol, number][]).map(
    ([symbol, pays]) =>
      `<tr><td>${GLYPHS[symbol]} ${GLYPHS[symbol]} ${GLYPHS[symbol]}</td><td>${NAMES[symbol]} ×3</td><td>${pays}×</td></tr>`,
  );
  rows.push(`<tr><td>🍒 🍒 –</td><td>Cherries on reels 1 and 2</td><td>${TWO_CHERRIES}×</td></tr>`);
  rows.push(`<tr><td>🍒 – –</td><td>Cherry on reel 1</td><td>${ONE_CHERRY}×</td></tr>`);
  return rows.join('\n');
}

/** The slot's page for one launch token (already checked to be letters and digits). */
export function renderDemoPage(token: string, appName: string): string {
  const rtp = ((Number(RTP.paid) / Number(RTP.staked)) * 100).toFixed(2);
  const stakes = STAKES.map((stake) => `<button data-stake="${stake}"${stake === 1 ? ' class="chosen"' : ''}>${stake.toFixed(2)}</button>`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(appName)} – Demo slot</title>
<style>${STYLE}</style>
</head>
<body data-token="${escapeHtml(token)}" data-glyphs="${escapeHtml(JSON.stringify(GLYPHS))}">
<h1>Demo slot</h1>
<p class="demo" hidden>Demo mode: play credits, no real money.</p>
<p class="balance">Loading…</p>
<div class="reels"><div class="reel">7</div><div class="reel">7</div><div class="reel">7</div></div>
<div class="stakes">${stakes.join('')}</div>
<button class="spin" disabled>Spin</button>
<p class="message" role="status"></p>
<table>
<caption>Paytable (stakes paid, one line; return to player ${rtp} %)</caption>
${paytableRows()}
</table>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
