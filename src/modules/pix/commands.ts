import { pino } from 'pino';
import type { Config } from '../../config.ts';
import { Keyring } from '../../platform/crypto.ts';
import type { Database } from '../../platform/db/client.ts';
import type { Logger } from '../../platform/logger.ts';
import { noMoneyEvents } from '../../platform/metrics/money.ts';
import { PixApiError } from '../payments/pix-api/errors.ts';
import { PixMethods } from '../payments/pix-api/methods.ts';
import { PixReceipts } from './receipts.ts';
import { PixReconciler, type ReconcileReport } from './reconciliation.ts';
import { PixReturns } from './returns.ts';

export interface PixCommandEnv {
  config: Config;
  database: Database;
}

export interface Output {
  out(line: string): void;
  err(line: string): void;
}

/**
 * The URL a PSP is told to notify for the method `code` (docs/api.md section 13). With a webhook
 * token it ends in `&ignorar=`: a PSP appends `/pix` to the whole registered string, and Efí's
 * documented form lands that suffix in a parameter nobody reads.
 */
export function notificationUrl(appUrl: string, code: string, token: string | undefined): string {
  const base = `${appUrl}/api/webhooks/pix/${code}`;
  return token === undefined ? base : `${base}?token=${encodeURIComponent(token)}&ignorar=`;
}

/** The URL as it may be printed: never the token. */
function shown(url: string): string {
  return url.replace(/([?&]token=)[^&]*/, '$1[redacted]');
}

/** A logger writing its lines, shortened, to a command's output. */
function commandLogger(output: Output): Logger {
  return pino(
    { level: 'info', base: undefined, timestamp: false },
    {
      write(line: string) {
        const entry = JSON.parse(line) as Record<string, unknown>;
        const { level, msg, ...fields } = entry;
        const text = `${String(msg)}${Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : ''}`;
        if (typeof level === 'number' && level >= 40) output.err(text);
        else output.out(text);
      },
    },
  );
}

/**
 * A command's calls to the PSP may take longer than a player's (the service's 4 s): an operator
 * at a terminal waits, and registering a webhook makes some PSPs (Efí) call the URL first.
 */
const COMMAND_TIMEOUT_MS = 30_000;

function methodsOf(env: PixCommandEnv, output: Output): PixMethods {
  return new PixMethods(env.database.db, new Keyring(env.config.appKey), {
    timeoutMs: COMMAND_TIMEOUT_MS,
    onUnusable: (method, problems) =>
      output.err(`Payment method ${method.code}: its configuration no longer works: ${JSON.stringify(problems)}`),
  });
}

/** `croupier pix:webhook <code> [--skip-mtls]`: tells the PSP where to notify (`PUT /webhook/{chave}`). */
export async function registerWebhook(env: PixCommandEnv, code: string, options: { skipMtls: boolean }, output: Output): Promise<number> {
  const methods = methodsOf(env, output);
  try {
    const method = await methods.byCode(code);
    if (method === undefined) {
      output.err(`No payment method "${code}" with a pix-api or efi gateway and a configuration that works.`);
      return 1;
    }
    const url = notificationUrl(env.config.appUrl, code, method.config.webhookToken);
    if (!url.startsWith('https:'))
      output.err(`APP_URL is not https (${env.config.appUrl}): a PSP notifies https addresses only (docs/payments.md).`);
    // Efí's way to say that TLS is checked by a proxy in front that does not ask for Efí's certificate.
    const headers: Record<string, string> = options.skipMtls ? { 'x-skip-mtls-checking': 'true' } : {};
    await method.client.registerWebhook(url, headers);
    const registered = await method.client.webhook();
    output.out(`${code}: the PSP notifies ${shown(url)}/pix of payments to ${method.config.pixKey}.`);
    if (registered !== undefined && registered !== url)
      output.err(`${code}: but the PSP reports ${shown(registered)} as the registered URL; check its answer.`);
    return 0;
  } catch (error) {
    if (!(error instanceof PixApiError)) throw error;
    const { title, detail, violacoes } = error.problem ?? {};
    output.err(`${code}: the PSP did not register the URL: ${[error.message, title, detail].filter(Boolean).join(' — ')}`);
    if (violacoes !== undefined) output.err(`  ${JSON.stringify(violacoes)}`);
    return 1;
  } finally {
    methods.close();
  }
}

function formatReport(report: ReconcileReport): string[] {
  const lines = report.methods.map(
    (method) =>
      `${method.code}: ${method.from.toISOString()} → ${method.to.toISOString()}: ${method.listed} payment(s) listed, ${method.credited} credited, ` +
      `${method.returned} returned, ${method.expired} top-up(s) expired${method.failures > 0 ? `, ${method.failures} failure(s)` : ''}`,
  );
  if (report.methods.length === 0) lines.push('No payment method has a pix-api or efi gateway with a configuration that works.');
  lines.push(`returns looked at: ${report.returns}`);
  return lines;
}

/** `croupier pix:reconcile [--from --to]`: one reconciliation pass, by hand. */
export async function reconcile(env: PixCommandEnv, window: { from?: Date; to?: Date }, output: Output): Promise<number> {
  const methods = methodsOf(env, output);
  try {
    const ctx = { db: env.database.db, money: noMoneyEvents, config: env.config };
    const returns = new PixReturns(ctx, methods);
    const receipts = new PixReceipts(ctx, returns);
    const reconciler = new PixReconciler(ctx, { methods, receipts, returns }, { log: commandLogger(output) });
    const report = await reconciler.run(window);
    for (const line of formatReport(report)) output.out(line);
    return report.failures > 0 ? 1 : 0;
  } finally {
    methods.close();
  }
}
