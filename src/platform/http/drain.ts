import type { FastifyInstance, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Resolves once no request handler is running (at most a few seconds). onClose hooks that
     * close something handlers use (database, Redis, mailer) await it first: Fastify runs
     * onClose hooks last-added first, so their order alone cannot promise it.
     */
    requestsDrained(): Promise<void>;
  }
}

/** How long a closing app waits for handlers still running before it closes what they use. */
const DRAIN_LIMIT_MS = 8_000;

/**
 * Graceful shutdown for requests already being handled. Once the app is closing, every answer
 * asks its client to close the connection, so a keep-alive socket ends with its answer instead
 * of holding the shutdown for the keep-alive timeout. And `requestsDrained()` waits for every
 * handler to finish, also those whose client went away (the server no longer counts them).
 * A handler has finished when its answer reaches onSend, which Fastify runs even when the
 * client is gone.
 */
export function registerDrain(app: FastifyInstance): void {
  let closing = false;
  const running = new Set<FastifyRequest>();
  let idle: (() => void) | undefined;
  let drained: Promise<void> | undefined;

  app.addHook('onRequest', (request, _reply, done) => {
    running.add(request);
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (running.delete(request) && running.size === 0) idle?.();
    if (closing) void reply.header('connection', 'close');
    done(null, payload);
  });
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });

  const waitForHandlers = async (): Promise<void> => {
    if (running.size === 0) return;
    app.log.info({ requests: running.size }, 'waiting for requests still being handled');
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      idle = resolve;
      timer = setTimeout(() => {
        app.log.error({ requests: running.size }, 'requests still running at shutdown; closing anyway');
        resolve();
      }, DRAIN_LIMIT_MS);
    });
    clearTimeout(timer);
  };
  app.decorate('requestsDrained', () => (drained ??= waitForHandlers()));
}
