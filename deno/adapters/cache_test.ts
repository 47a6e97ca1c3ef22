import assert from 'node:assert/strict';
import { CacheStorage, installCaches } from './cache.ts';

function clock(start = 1_700_000_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

/** A storage over Deno's `caches` under a name of its own, removed by `clear()` at the end of the test. */
const storages: CacheStorage[] = [];
function storage(now?: () => number) {
  const made = new CacheStorage({ prefix: `test-${crypto.randomUUID()}#`, now });
  storages.push(made);
  return made;
}
function test(name: string, fn: () => Promise<void>) {
  Deno.test(name, async () => {
    try {
      await fn();
    } finally {
      for (const made of storages.splice(0)) await made.clear();
    }
  });
}

const json = (value: unknown, cacheControl: string, extra: Record<string, string> = {}) =>
  new Response(JSON.stringify(value), { headers: { 'content-type': 'application/json', 'cache-control': cacheControl, ...extra } });

test('Cache: put, match and delete by URL; each match is a fresh response', async () => {
  const time = clock();
  const caches = storage(time.now);
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

test('Cache: max-age and s-maxage decide how long an entry lives; uncacheable responses are not kept', async () => {
  const time = clock();
  const cache = storage(time.now).default;
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

test('Cache: named caches are separate from the default one; installCaches sets the global', async () => {
  const caches = storage();
  const named = await caches.open('runners');
  assert.equal(await caches.open('runners'), named);
  await named.put('https://x/k', json('named', 'max-age=60'));
  assert.equal(await caches.default.match('https://x/k'), undefined);
  assert.ok(await named.match('https://x/k'));
  const original = Object.getOwnPropertyDescriptor(globalThis, 'caches');
  try {
    installCaches(caches);
    const global = globalThis.caches as unknown as CacheStorage;
    assert.equal(global.default, caches.default);
  } finally {
    if (original) Object.defineProperty(globalThis, 'caches', original);
  }
});

test("Cache: entries live in Deno's caches, so a host on the same state directory finds them and another does not", async () => {
  const prefix = `test-${crypto.randomUUID()}#`;
  const first = new CacheStorage({ prefix });
  storages.push(first);
  await first.default.put('https://form.example/page', json({ kept: true }, 'max-age=60'));
  await (await first.open('named')).put('https://form.example/page', json({ named: true }, 'max-age=60'));
  const again = new CacheStorage({ prefix });
  const hit = await again.default.match('https://form.example/page');
  assert.ok(hit);
  assert.deepEqual(await hit.json(), { kept: true });
  // The expiry kept beside the entry stays inside the adapter.
  assert.deepEqual([...hit.headers.keys()].sort(), ['cache-control', 'cf-cache-status', 'content-type']);
  assert.deepEqual(await (await (await again.open('named')).match('https://form.example/page'))!.json(), { named: true });
  assert.equal(await storage().default.match('https://form.example/page'), undefined);
  // Deno's own storage holds it under the prefixed name.
  const raw = await (await globalThis.caches.open(`${prefix}default`)).match('https://form.example/page');
  assert.ok(raw);
  await raw.body?.cancel();
  await first.clear();
  assert.equal(await again.default.match('https://form.example/page'), undefined);
});

test('Cache: a response that may not be kept replaces nothing stale: the earlier entry is removed', async () => {
  const cache = storage().default;
  await cache.put('https://x/page', json(1, 'max-age=60'));
  await cache.put('https://x/page', json(2, 'max-age=60', { 'set-cookie': 'session=1' }));
  assert.equal(await cache.match('https://x/page'), undefined);
  await cache.put('https://x/page', json(3, 'max-age=60'));
  assert.equal(await cache.delete('https://x/page'), true);
  assert.equal(await cache.match('https://x/page'), undefined);
});
