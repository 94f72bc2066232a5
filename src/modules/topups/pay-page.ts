import QRCode from 'qrcode';
import { escapeHtml } from '../../platform/http/html.ts';
import { formatUnits } from '../../platform/money.ts';
import { TOPUP_STATUS, TOPUP_STATUSES, type TopupRow } from './repository.ts';

const STATUS_TEXT: Record<ReturnType<typeof TOPUP_STATUSES.nameOf>, string> = {
  pending: 'Waiting for payment',
  paid: 'Paid',
  cancelled: 'Cancelled',
  expired: 'Expired',
  unknown: 'Unknown',
};

/**
 * The payment page of a top-up: the QR code as an inline SVG data URL and the copy-and-paste
 * text. Every value is escaped; the page loads nothing from anywhere and runs no script.
 */
export async function renderPayPage(topup: TopupRow, appName: string): Promise<string> {
  const status = topup.status;
  const amount = `${escapeHtml(topup.currency)} ${formatUnits(topup.amount)}`;
  let body = `<p class="status">${escapeHtml(STATUS_TEXT[TOPUP_STATUSES.nameOf(status)])}</p>`;
  if (status === TOPUP_STATUS.pending && topup.qr_code !== null) {
    const svg = await QRCode.toString(topup.qr_code, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    const image = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
    body += `<img class="qr" src="${image}" width="280" height="280" alt="PIX QR code">
    <p>Or copy this PIX code into your bank app:</p>
    <textarea readonly rows="5">${escapeHtml(topup.qr_code)}</textarea>`;
  }
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(appName)} – PIX payment</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 26rem; margin: 2rem auto; padding: 0 1rem; text-align: center; color: #1a1a1a; }
.amount { font-size: 2rem; font-weight: 600; margin: .5rem 0; }
.status { color: #555; }
.qr { display: block; margin: 1rem auto; }
textarea { width: 100%; font-family: monospace; font-size: .8rem; word-break: break-all; }
</style>
</head>
<body>
<h1>PIX payment</h1>
<p class="amount">${amount}</p>
${body}
</body>
</html>
`;
}
