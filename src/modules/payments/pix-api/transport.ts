import { Agent, request } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { PixApiError } from './errors.ts';

/** A PSP's answers are small; anything larger is not an API Pix answer. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

export interface TlsIdentity {
  /** PEM: the client certificate (with its chain) and its key, presented on every connection. */
  certificate: string;
  privateKey: string;
  /** PEM of the CA the PSP's server certificate must chain to; the system's CAs when absent. */
  ca: string | undefined;
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface Call {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

/**
 * HTTPS with mutual TLS: one keep-alive agent per identity, so every call (the token's included)
 * presents the client certificate, verifies the PSP's against the configured CA, and reuses
 * connections. Each call has one deadline covering connect, TLS, request and the whole answer.
 */
export class MutualTls {
  readonly #agent: Agent;

  constructor(identity: TlsIdentity) {
    this.#agent = new Agent({
      cert: identity.certificate,
      key: identity.privateKey,
      ...(identity.ca === undefined ? {} : { ca: identity.ca }),
      keepAlive: true,
      maxSockets: 32,
      minVersion: 'TLSv1.2',
    });
  }

  send(call: Call): Promise<Answer> {
    const name = `${call.method} ${call.url.pathname}`;
    return new Promise<Answer>((resolve, reject) => {
      let settled = false;
      const fail = (error: PixApiError) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        outgoing.destroy();
        reject(error);
      };
      const outgoing = request(call.url, { method: call.method, headers: call.headers, agent: this.#agent }, (incoming) => {
        const chunks: Buffer[] = [];
        let size = 0;
        incoming.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES)
            fail(new PixApiError('unexpected', name, 'the answer is too large', { status: incoming.statusCode }));
          else chunks.push(chunk);
        });
        incoming.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, text: Buffer.concat(chunks).toString('utf8') });
        });
        incoming.on('error', (error) => fail(new PixApiError('network', name, error.message, { cause: error })));
      });
      const timer = setTimeout(() => fail(new PixApiError('timeout', name, `no answer within ${call.timeoutMs} ms`)), call.timeoutMs);
      outgoing.on('error', (error) => fail(new PixApiError('network', name, error.message, { cause: error })));
      outgoing.end(call.body);
    });
  }

  /** Closes the kept-alive connections (a method's configuration changed, or the app stops). */
  close(): void {
    this.#agent.destroy();
  }
}
