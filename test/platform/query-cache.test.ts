import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { LocalInvalidationBus } from '../../src/platform/cache/invalidation.ts';
import { QueryCache } from '../../src/platform/cache/query-cache.ts';
import { RedisInvalidationBus } from '../../src/platform/cache/redis-invalidation.ts';

const options = { topic: 'test', maxEntries: 3, maxAgeMs: 60_000 };

/** A load whose answer the test releases, counting how often it ran. */
function gate(value: string) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const load = Object.assign(
    async () => {
      load.runs += 1;
      await released;
      return value;
    },
    { runs: 0 },
  );
  return { load, release };
}

describe('query cache', () => {
  test('a hit does not load again; concurrent misses share one load', async () => {
    const cache = new QueryCache<string>(new LocalInvalidationBus(), options);
    const { load, release } = gate('v');
    const both = Promise.all([cache.get('k', load), cache.get('k', load)]);
    release();
    assert.deepEqual(await both, ['v', 'v']);
    assert.equal(await cache.get('k', load), 'v');
    assert.equal(load.runs, 1);
  });

  test('a load that was running when an invalidation came is answered but not kept', async () => {
    const bus = new LocalInvalidationBus();
    const cache = new QueryCache<string>(bus, options);
    const stale = gate('read before the change');
    const answer = cache.get('k', stale.load);
    await bus.publish('test');
    stale.release();
    assert.equal(await answer, 'read before the change');
    assert.equal(await cache.get('k', async () => 'fresh'), 'fresh');
  });

  test('an invalidation with a key drops that key only; other topics are not heard', async () => {
    const bus = new LocalInvalidationBus();
    const cache = new QueryCache<string>(bus, options);
    await cache.get('a', async () => 'a1');
    await cache.get('b', async () => 'b1');
    await bus.publish('test', 'a');
    await bus.publish('other');
    assert.equal(await cache.get('a', async () => 'a2'), 'a2');
    assert.equal(await cache.get('b', async () => 'b2'), 'b1');
  });

  test('the least recently read entry goes first when the cache is full', async () => {
    const cache = new QueryCache<string>(new LocalInvalidationBus(), options);
    for (const key of ['a', 'b', 'c']) await cache.get(key, async () => `${key}1`);
    await cache.get('a', async () => 'unused');
    await cache.get('d', async () => 'd1');
    assert.equal(cache.size, 3);
    assert.equal(await cache.get('a', async () => 'a2'), 'a1');
    assert.equal(await cache.get('b', async () => 'b2'), 'b2');
  });

  test('nothing is kept while the bus cannot hear other instances', async () => {
    // Nothing listens on port 1: the bus never becomes live.
    const redis = new Redis('redis://127.0.0.1:1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    const bus = new RedisInvalidationBus(redis);
    const cache = new QueryCache<string>(bus, options);
    assert.equal(bus.live, false);
    assert.equal(await cache.get('k', async () => 'first'), 'first');
    assert.equal(await cache.get('k', async () => 'second'), 'second');
    assert.equal(cache.size, 0);
    await bus.close();
    redis.disconnect();
  });
});
