import assert from 'node:assert/strict';
import { registerCrons, runScheduled, type ScheduledController } from './cron.ts';

Deno.test('runScheduled passes the controller, env and ctx and reports the outcome', async () => {
  const seen: ScheduledController[] = [];
  const env = { A: '1' };
  const ok = await runScheduled(
    't',
    (controller, e) => {
      assert.equal(e, env);
      seen.push(controller);
    },
    '23 * * * *',
    env,
    {},
  );
  assert.deepEqual(ok, { outcome: 'ok' });
  assert.equal(seen[0]!.cron, '23 * * * *');
  assert.ok(Math.abs(seen[0]!.scheduledTime - Date.now()) < 1000);
  const original = console.error;
  console.error = () => {};
  try {
    const failed = await runScheduled('t', () => Promise.reject(new Error('nope')), '* * * * *', env, {});
    assert.deepEqual(failed, { outcome: 'exception', error: 'nope' });
  } finally {
    console.error = original;
  }
});

Deno.test('registerCrons names one cron per schedule and stops on abort', async () => {
  const registered: { name: string; schedule: string; fire: () => Promise<void> }[] = [];
  const ticks: string[] = [];
  const controller = new AbortController();
  const done = registerCrons(
    'mail',
    ['*/30 * * * *', '0 1 * * *'],
    async (cron) => void ticks.push(cron),
    controller.signal,
    (name, schedule, { signal }, handler) => {
      registered.push({ name, schedule, fire: handler });
      return new Promise((resolve) => signal.addEventListener('abort', () => resolve()));
    },
  );
  assert.deepEqual(
    registered.map((r) => [r.name, r.schedule]),
    [
      ['mail 0', '*/30 * * * *'],
      ['mail 1', '0 1 * * *'],
    ],
  );
  await registered[1]!.fire();
  assert.deepEqual(ticks, ['0 1 * * *']);
  controller.abort();
  await Promise.all(done);
});

Deno.test("registerCrons accepts the services' schedules with the real Deno.cron", {
  ignore: typeof Deno.cron !== 'function',
}, async () => {
  const controller = new AbortController();
  const done = registerCrons('cron-test', ['23 * * * *', '* * * * *', '*/30 * * * *'], async () => {}, controller.signal);
  controller.abort();
  await Promise.all(done);
});
