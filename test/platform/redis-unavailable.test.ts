// Issue 18: what a rate limit does when the Redis that keeps its counters is gone or silent. It
// refuses (503), never lets the attempt through uncounted: a sign-in throttle that failed open
// would let a password be guessed for as long as Redis is away.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { registerErrorHandling } from '../../src/platform/http/error-handler.ts';
import { throttle } from '../../src/platform/rate-limit.ts';
import { connectRedis, RedisRateLimiter } from '../../src/platform/redis.ts';
import { freePort } from '../resilience/instances.ts';
import { RedisServer, redisServerInstalled } from '../resilience/redis-server.ts';

const skip = !redisServerInstalled() && 'redis-server is not installed';

describe('a rate limit whose Redis is gone', { skip }, () => {
  let server: RedisServer;
  let redis: Redis;
  let app: FastifyInstance;

  before(async () => {
    server = new RedisServer(await freePort());
    await server.start();
    redis = connectRedis(server.url);
    // A sign-in's throttle, as the login route keeps it: five tries a minute.
    const limiter = new RedisRateLimiter(redis);
    app = Fastify();
    registerErrorHandling(app);
    app.post('/attempt', async (_request, reply) => {
      await throttle(limiter, 'login|someone@example.com|127.0.0.1', 5, 60);
      return reply.code(204).send();
    });
  });
  after(async () => {
    await app?.close();
    redis?.disconnect();
    server?.resume();
    await server?.kill();
  });

  async function attempt(): Promise<number> {
    return (await app.inject({ method: 'POST', url: '/attempt' })).statusCode;
  }

  /** The contract's 503, answered within the bound the issue sets. */
  async function assertRefused(): Promise<void> {
    const started = performance.now();
    const res = await app.inject({ method: 'POST', url: '/attempt' });
    const ms = performance.now() - started;
    assert.deepEqual(
      { status: res.statusCode, body: res.json<unknown>(), retryAfter: res.headers['retry-after'] },
      { status: 503, body: { message: 'Service Unavailable.' }, retryAfter: '5' },
    );
    assert.ok(ms < 2000, `answered after ${Math.round(ms)} ms`);
  }

  function connected(): Promise<void> {
    if (redis.status === 'ready') return Promise.resolve();
    return new Promise((resolve) => redis.once('ready', () => resolve()));
  }

  test('killed or paused, it answers 503 within 2 s instead of counting nothing; back, it counts again by itself', async () => {
    await connected();
    for (let i = 0; i < 5; i++) assert.equal(await attempt(), 204);
    assert.equal(await attempt(), 429, 'the sixth try is throttled');

    await server.kill();
    await assertRefused();

    // Back empty: the counters start again, through the same connection.
    await server.start();
    await connected();
    assert.equal(await attempt(), 204);

    // Paused: the connection stays open and nothing answers; it is given up within the bound.
    server.pause();
    await assertRefused();
    await assertRefused();
    server.resume();
    await connected();
    assert.equal(await attempt(), 204, 'the count kept while paused goes on');
  });
});
