import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LruCache } from '../../src/rendering/lru.ts';

test('the LRU evicts the least recently used entry past its count or weight bound', () => {
  const cache = new LruCache<string, number>(2, 100);
  cache.set('a', 1);
  cache.set('b', 2);
  assert.equal(cache.get('a'), 1); // a is now the most recently used
  cache.set('c', 3);
  assert.equal(cache.get('b'), undefined);
  assert.deepEqual([cache.get('a'), cache.get('c')], [1, 3]);

  const weighted = new LruCache<string, string>(10, 10);
  weighted.set('x', 'x', 6);
  weighted.set('y', 'y', 6);
  assert.equal(weighted.get('x'), undefined);
  assert.equal(weighted.get('y'), 'y');
  weighted.set('huge', 'h', 11); // heavier than the whole cache: not kept, nothing evicted
  assert.equal(weighted.get('huge'), undefined);
  assert.equal(weighted.size, 1);
});
