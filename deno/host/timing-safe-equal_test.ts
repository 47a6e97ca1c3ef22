import assert from 'node:assert/strict';
import { installTimingSafeEqual, timingSafeEqual } from './timing-safe-equal.ts';

Deno.test('timingSafeEqual compares equal-length buffers and views', () => {
  const bytes = new TextEncoder().encode('secret-token');
  assert.ok(timingSafeEqual(bytes, new TextEncoder().encode('secret-token')));
  assert.ok(!timingSafeEqual(bytes, new TextEncoder().encode('secret-tokeN')));
  assert.ok(timingSafeEqual(bytes.buffer, new DataView(bytes.buffer)));
  // A view over part of a larger buffer compares only its own bytes.
  const big = new Uint8Array([9, 1, 2, 3, 9]);
  assert.ok(timingSafeEqual(big.subarray(1, 4), new Uint8Array([1, 2, 3])));
});

Deno.test('timingSafeEqual refuses different lengths and non-buffers, as workerd does', () => {
  assert.throws(() => timingSafeEqual(new Uint8Array(2), new Uint8Array(3)), TypeError);
  assert.throws(() => timingSafeEqual('ab' as unknown as ArrayBuffer, new Uint8Array(2)), TypeError);
});

Deno.test('installTimingSafeEqual puts it on crypto.subtle', async () => {
  installTimingSafeEqual();
  installTimingSafeEqual();
  const subtle = crypto.subtle as SubtleCrypto & { timingSafeEqual(a: ArrayBuffer, b: ArrayBuffer): boolean };
  const [a, b] = await Promise.all([crypto.subtle.digest('SHA-256', new Uint8Array([1])), crypto.subtle.digest('SHA-256', new Uint8Array([1]))]);
  assert.equal(subtle.timingSafeEqual(a, b), true);
});
