import type { Hub88Config } from './config.ts';
import { hub88Signature } from './signature.ts';

/**
 * Our calls to Hub88's Operator Games API (docs.hub88.io, "Games API"): a JSON body signed with
 * our private key in `X-Hub88-Signature`, POSTed to `<base_url><path>`. Never inside a database
 * transaction; every call is bounded by its caller's signal (a launch waits LAUNCH_TIMEOUT_MS, a
 * catalogue sync SYNC_TIMEOUT_MS of catalogue/sync.ts). Redirects are refused: a signed body
 * (with a player's token) goes to the configured address or nowhere.
 */
export const LAUNCH_TIMEOUT_MS = 10_000;
/** The game list of a large account is a few megabytes; anything far larger is not one. */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

export const GAME_URL_PATH = '/operator/generic/v2/game/url';
export const GAME_LIST_PATH = '/operator/generic/v2/game/list';

/** A call to Hub88 that did not come back with a 200 and JSON: the status (0 without an answer) and why. */
export class Hub88CallError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.name = 'Hub88CallError';
    this.status = status;
  }
}

/** `<base_url><path>`, whether or not the base URL ends with a slash. */
export function hub88Url(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${path}`;
}

/** POSTs `body` signed to Hub88 and answers its parsed JSON; throws Hub88CallError for anything but a 200 with JSON. */
export async function callHub88(config: Hub88Config, path: string, body: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
  const text = JSON.stringify(body);
  let response: Response;
  try {
    response = await fetch(hub88Url(config.baseUrl, path), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'x-hub88-signature': hub88Signature(text, config.privateKey),
      },
      body: text,
      redirect: 'error',
      signal,
    });
  } catch (error) {
    throw new Hub88CallError(0, `no answer from Hub88 (${error instanceof Error ? error.message : String(error)})`);
  }
  const length = Number(response.headers.get('content-length') ?? '0');
  if (length > MAX_ANSWER_BYTES) {
    await response.body?.cancel();
    throw new Hub88CallError(response.status, `an answer of ${length} bytes`);
  }
  let answer: unknown;
  try {
    answer = await response.json();
  } catch {
    throw new Hub88CallError(response.status, `HTTP ${response.status} without JSON`);
  }
  if (response.status !== 200) {
    const reason =
      typeof (answer as { error?: unknown } | null)?.error === 'string' ? (answer as { error: string }).error : 'no reason given';
    throw new Hub88CallError(response.status, `HTTP ${response.status}: ${reason.slice(0, 200)}`);
  }
  return answer;
}
