import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Batcher } from '../../src/db/batcher.ts';

/** A write function that records each batch and answers every item doubled, after `delayMs`. */
function recordingWrite(delayMs = 5) {
  const batches: number[][] = [];
  const write = async (items: number[]) => {
    batches.push([...items]);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    return items.map((item) => item * 2);
  };
  return { batches, write };
}

describe('Batcher: group commit (src/db/batcher.ts)', () => {
  test('calls made in one event-loop turn while the writer is idle share one write', async () => {
    const { batches, write } = recordingWrite();
    const batcher = new Batcher(write, { maxInFlight: 1, maxBatch: 50 });
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => batcher.submit(n)));
    assert.deepEqual(results, [2, 4, 6, 8, 10]);
    assert.deepEqual(batches, [[1, 2, 3, 4, 5]]);
  });

  test('calls that arrive while a write runs are written together by the next one, in order', async () => {
    const { batches, write } = recordingWrite(30);
    const batcher = new Batcher(write, { maxInFlight: 1, maxBatch: 50 });
    const first = batcher.submit(1);
    await new Promise((resolve) => setTimeout(resolve, 10)); // the first write is running
    const later = [2, 3, 4].map((n) => batcher.submit(n));
    assert.deepEqual(await Promise.all([first, ...later]), [2, 4, 6, 8]);
    assert.deepEqual(batches, [[1], [2, 3, 4]]);
  });

  test('maxBatch bounds a write; items sharing a key never share one', async () => {
    const { batches, write } = recordingWrite();
    const batcher = new Batcher(write, { maxInFlight: 1, maxBatch: 3, keysOf: (n: number) => [String(n % 10)] });
    await Promise.all([1, 11, 2, 3, 4, 5].map((n) => batcher.submit(n)));
    assert.deepEqual(batches, [
      [1, 2, 3],
      [11, 4, 5],
    ]);
  });

  test('a failed write is retried item by item: only the bad item fails its caller', async () => {
    const batches: number[][] = [];
    const batcher = new Batcher(
      async (items: number[]) => {
        batches.push([...items]);
        if (items.includes(13)) throw new Error('thirteen');
        return items.map((item) => item * 2);
      },
      { maxInFlight: 1, maxBatch: 50 },
    );
    const results = await Promise.allSettled([12, 13, 14].map((n) => batcher.submit(n)));
    assert.deepEqual(
      results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)),
      [24, 'thirteen', 28],
    );
    assert.deepEqual(batches[0], [12, 13, 14]);
    assert.deepEqual(batches.slice(1).sort(), [[12], [13], [14]]);
  });
});
