import { Agent, request } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { createSecureContext } from 'node:tls';
import { PixApiError } from './errors.ts';

/** A kept-alive connection that the PSP had closed, found as a call was sent on it: nothing reached the PSP. */
class StaleConnection extends Error {
  readonly failure: PixApiError;

  constructor(failure: PixApiError) {
    super(failure.message);
    this.failure = failure;
  }
}

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
      // One secure context for every connection: given as PEM strings instead, the certificate,
      // key and CA would be parsed again for each connection, and concatenated into the agent's
      // connection-pool name (Agent#getName) on every request, several kilobytes built and hashed
      // per call. The context verifies the PSP's certificate against the CA all the same.
      secureContext: createSecureContext({
        cert: identity.certificate,
        key: identity.privateKey,
        ...(identity.ca === undefined ? {} : { ca: identity.ca }),
        minVersion: 'TLSv1.2',
      }),
      keepAlive: true,
      maxSockets: 32,
    });
  }

  /**
   * One call. A kept-alive connection the PSP closed as it was reused (its idle timeout racing our
   * request) fails before any answer; a read (GET) is then sent once more on a new connection,
   * as Node's documentation advises, within the same deadline. A write is not: its outcome stays
   * unknown and its caller asks about it (every API Pix write names its record).
   */
  async send(call: Call): Promise<Answer> {
    const deadline = Date.now() + call.timeoutMs;
    try {
      return await this.#send(call, call.timeoutMs);
    } catch (error) {
      const retry = error instanceof StaleConnection && call.method === 'GET' && deadline - Date.now() > 0;
      if (!retry) throw error instanceof StaleConnection ? error.failure : error;
      return this.#send(call, deadline - Date.now()).catch((again: unknown) => {
        throw again instanceof StaleConnection ? again.failure : again;
      });
    }
  }

  #send(call: Call, timeoutMs: number): Promise<Answer> {
    const name = `${call.method} ${call.url.pathname}`;
    return new Promise<Answer>((resolve, reject) => {
      let settled = false;
      let answered = false;
      const fail = (error: PixApiError | StaleConnection) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        outgoing.destroy();
        reject(error);
      };
      const outgoing = request(call.url, { method: call.method, headers: call.headers, agent: this.#agent }, (incoming) => {
        answered = true;
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
      const timer = setTimeout(() => fail(new PixApiError('timeout', name, `no answer within ${call.timeoutMs} ms`)), timeoutMs);
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        const failure = new PixApiError('network', name, error.message, { cause: error });
        const stale = outgoing.reusedSocket && !answered && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
        fail(stale ? new StaleConnection(failure) : failure);
      });
      outgoing.end(call.body);
    });
  }

  /** Closes the kept-alive connections (a method's configuration changed, or the app stops). */
  close(): void {
    this.#agent.destroy();
  }
}
