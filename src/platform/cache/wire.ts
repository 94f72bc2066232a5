/** How long a publisher waits for its own echo before going on (a slow or lost message). */
export const ECHO_TIMEOUT_MS = 1000;

/** An invalidation as it travels between instances (Redis pub/sub, PostgreSQL NOTIFY). */
export interface Message {
  /** The instance that sent it; it already told its own caches. */
  o: string;
  t: string;
  k?: string;
  /** The sender's nonce, for its own echo. */
  n?: string;
}

export function encodeMessage(origin: string, topic: string, key?: string, nonce?: string): string {
  const message: Message = { o: origin, t: topic };
  if (key !== undefined) message.k = key;
  if (nonce !== undefined) message.n = nonce;
  return JSON.stringify(message);
}

export function parseMessage(raw: string): Message | undefined {
  try {
    const message = JSON.parse(raw) as Partial<Message>;
    if (typeof message.o !== 'string' || typeof message.t !== 'string') return undefined;
    if (message.k !== undefined && typeof message.k !== 'string') return undefined;
    if (message.n !== undefined && typeof message.n !== 'string') return undefined;
    return message as Message;
  } catch {
    return undefined;
  }
}

/**
 * A publisher waits until its own message comes back on its listening connection: the server
 * sends a message to every listener in one pass, so by then the other instances have it too,
 * and a client's next request, wherever it lands, finds their caches already emptied.
 */
export class Echoes {
  readonly #waiting = new Map<string, () => void>();
  #next = 0;

  /** A nonce for the next message, and a promise that settles when it is heard or after `timeoutMs`. */
  expect(timeoutMs: number): { nonce: string; heard: Promise<void> } {
    this.#next += 1;
    const nonce = this.#next.toString(36);
    const heard = new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.#settle(nonce), timeoutMs);
      timer.unref();
      this.#waiting.set(nonce, () => {
        clearTimeout(timer);
        resolve();
      });
    });
    return { nonce, heard };
  }

  heard(nonce: string | undefined): void {
    if (nonce !== undefined) this.#settle(nonce);
  }

  /** The listening connection went down: nothing will come back. */
  settleAll(): void {
    for (const nonce of [...this.#waiting.keys()]) this.#settle(nonce);
  }

  #settle(nonce: string): void {
    const resolve = this.#waiting.get(nonce);
    this.#waiting.delete(nonce);
    resolve?.();
  }
}
