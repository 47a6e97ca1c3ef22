import assert from 'node:assert/strict';
import { drain, HostExecutionContext } from './execution-context.ts';

Deno.test('waitUntil work is tracked until it settles, and a rejection is logged, not thrown', async () => {
  const pending = new Set<Promise<unknown>>();
  const ctx = new HostExecutionContext(pending, 'test');
  const done: string[] = [];
  ctx.waitUntil(new Promise((resolve) => setTimeout(resolve, 10)).then(() => done.push('late')));
  const errors: unknown[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void errors.push(args.join(' '));
  try {
    ctx.waitUntil(Promise.reject(new Error('boom')));
    assert.equal(pending.size, 2);
    await drain(pending);
  } finally {
    console.error = original;
  }
  assert.deepEqual(done, ['late']);
  assert.equal(pending.size, 0);
  assert.match(String(errors[0]), /\[test\] waitUntil: Error: boom/);
});

Deno.test('passThroughOnException is recorded; props are empty', () => {
  const ctx = new HostExecutionContext(new Set(), 'test');
  assert.equal(ctx.passThrough, false);
  ctx.passThroughOnException();
  assert.equal(ctx.passThrough, true);
  assert.deepEqual(ctx.props, {});
});
