// Requests taken together while a batch runs (src/platform/coalesce.ts): what each caller sees.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Coalescer } from '../../src/platform/coalesce.ts';

/** A coalescer whose batches wait until released, recording what each batch held. */
function gated(maxItems: number) {
  const batches: number[][] = [];
  const releases: (() => void)[] = [];
  const coalescer = new Coalescer<number, string>(
    async (items) => {
      batches.push(items);
      await new Promise<void>((resolve) => releases.push(resolve));
      if (items.includes(-1)) throw new Error('the whole batch failed');
      return items.map((item) =>
        item === 0 ? { status: 'rejected' as const, reason: new Error('zero') } : { status: 'fulfilled' as const, value: `#${item}` },
      );
    },
    { maxItems },
  );
  const release = async () => {
    // Lets the running batch start before it is released, and the next one after.
    await new Promise((resolve) => setImmediate(resolve));
    releases.shift()!();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { coalescer, batches, release };
}

describe('requests taken together', () => {
  test('a request on its own goes at once, in a batch of one', async () => {
    const { coalescer, batches, release } = gated(10);
    const answer = coalescer.submit(1);
    await release();
    assert.equal(await answer, '#1');
    assert.deepEqual(batches, [[1]]);
  });

  test('requests that arrive while a batch runs go together in the next one, in their order, at most maxItems a batch', async () => {
    const { coalescer, batches, release } = gated(3);
    const answers = [1, 2, 3, 4, 5, 6].map((item) => coalescer.submit(item));
    await release();
    await release();
    await release();
    assert.deepEqual(await Promise.all(answers), ['#1', '#2', '#3', '#4', '#5', '#6']);
    assert.deepEqual(batches, [[1], [2, 3, 4], [5, 6]]);
  });

  test('each request settles as its own result does: one rejected does not reject the others of its batch', async () => {
    const { coalescer, release } = gated(10);
    const answers = Promise.allSettled([7, 0, 8].map((item) => coalescer.submit(item)));
    await release();
    await release();
    const settled = await answers;
    assert.deepEqual(
      settled.map((result) => (result.status === 'fulfilled' ? result.value : (result.reason as Error).message)),
      ['#7', 'zero', '#8'],
    );
  });

  test('a batch that fails as a whole fails its own requests only, and the next batch still runs', async () => {
    const { coalescer, batches, release } = gated(2);
    const answers = Promise.allSettled([1, -1, 2, 3].map((item) => coalescer.submit(item)));
    await release();
    await release();
    await release();
    const settled = await answers;
    assert.deepEqual(
      settled.map((result) => (result.status === 'fulfilled' ? result.value : (result.reason as Error).message)),
      ['#1', 'the whole batch failed', 'the whole batch failed', '#3'],
    );
    assert.deepEqual(batches, [[1], [-1, 2], [3]]);
  });

  test('a batch that answers a result short is refused for all of its requests', async () => {
    const coalescer = new Coalescer<number, number>(async (items) => items.slice(1).map((value) => ({ status: 'fulfilled', value })), {
      maxItems: 5,
    });
    await assert.rejects(coalescer.submit(1), /A batch of 1 answered 0 results/);
  });
});
