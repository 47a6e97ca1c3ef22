import assert from 'node:assert/strict';
import { CacheStorage, installCaches } from './cache.ts';

function clock(start = 1_700_000_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

const json = (value: unknown, cacheControl: string, extra: Record<string, string> = {}) =>
  new Response(JSON.stringify(value), { headers: { 'content-type': 'application/json', 'cache-control': cacheControl, ...extra } });

Deno.test('Cache: put, match and delete by URL; each match is a fresh response', async () => {
  const time = clock();
  const caches = new CacheStorage(time.now);
  const cache = caches.default;
  await cache.put('https://form.example/cache/runner/1', json({ value: 1 }, 'public, max-age=60'));
  const hit = await cache.match(new Request('https://form.example/cache/runner/1'));
  assert.ok(hit);
  assert.equal(hit.headers.get('cf-cache-status'), 'HIT');
  assert.equal(hit.headers.get('content-type'), 'application/json');
  assert.deepEqual(await hit.json(), { value: 1 });
  assert.deepEqual(await (await cache.match('https://form.example/cache/runner/1'))!.json(), { value: 1 });
  assert.equal(await cache.match('https://form.example/cache/runner/2'), undefined);
  assert.equal(await cache.match(new Request('https://form.example/cache/runner/1', { method: 'POST' })), undefined);
  assert.ok(await cache.match(new Request('https://form.example/cache/runner/1', { method: 'POST' }), { ignoreMethod: true }));
  assert.equal(await cache.delete('https://form.example/cache/runner/1'), true);
  assert.equal(await cache.delete('https://form.example/cache/runner/1'), false);
  assert.equal(await cache.match('https://form.example/cache/runner/1'), undefined);
});

Deno.test('Cache: max-age and s-maxage decide how long an entry lives; uncacheable responses are not kept', async () => {
  const time = clock();
  const cache = new CacheStorage(time.now).default;
  await cache.put('https://x/a', json(1, 'max-age=10'));
  await cache.put('https://x/b', json(2, 'max-age=10, s-maxage=100'));
  await cache.put('https://x/c', json(3, 'no-store'));
  await cache.put('https://x/d', json(4, 'private, max-age=100'));
  await cache.put('https://x/e', json(5, 'max-age=100', { 'set-cookie': 'a=b' }));
  await cache.put('https://x/f', json(6, ''));
  await cache.put('https://x/g', json(7, '', { expires: new Date(time.now() + 5_000).toUTCString() }));
  for (const key of ['c', 'd', 'e', 'f']) assert.equal(await cache.match(`https://x/${key}`), undefined, key);
  assert.ok(await cache.match('https://x/a'));
  assert.ok(await cache.match('https://x/g'));
  time.advance(10_001);
  assert.equal(await cache.match('https://x/a'), undefined);
  assert.equal(await cache.match('https://x/g'), undefined);
  assert.deepEqual(await (await cache.match('https://x/b'))!.json(), 2);
  time.advance(90_000);
  assert.equal(await cache.match('https://x/b'), undefined);
  await assert.rejects(cache.put(new Request('https://x/p', { method: 'POST' }), json(1, 'max-age=1')), TypeError);
  await assert.rejects(cache.put('https://x/r', new Response('x', { status: 206, headers: { 'cache-control': 'max-age=1' } })), TypeError);
});

Deno.test('Cache: named caches are separate from the default one; installCaches sets the global', async () => {
  const storage = new CacheStorage();
  const named = await storage.open('runners');
  assert.equal(await storage.open('runners'), named);
  await named.put('https://x/k', json('named', 'max-age=60'));
  assert.equal(await storage.default.match('https://x/k'), undefined);
  assert.ok(await named.match('https://x/k'));
  const original = Object.getOwnPropertyDescriptor(globalThis, 'caches');
  try {
    installCaches(storage);
    const global = globalThis.caches as unknown as CacheStorage;
    assert.equal(global.default, storage.default);
  } finally {
    if (original) Object.defineProperty(globalThis, 'caches', original);
  }
});
