// The host end to end without Postgres: the auth service (D1, Durable Objects, assets, cron) and
// the router in process, on ports the system picks. Needs --allow-net.
import assert from 'node:assert/strict';
import { startHost } from './host.ts';
import { seedDevData } from './seed.ts';

Deno.test("serves auth and the router from the Workers' own modules", { sanitizeOps: false, sanitizeResources: false }, async () => {
  const stateDir = await Deno.makeTempDir();
  const lines: string[] = [];
  const host = await startHost({
    services: ['auth', 'router'],
    ports: { auth: 0, router: 0 },
    stateDir,
    crons: false,
    testScheduled: true,
    // As `npm run dev:deno` gives every Worker: a loopback relay marks local development, where
    // the published development secrets of .dev.vars.example are accepted (nothing listens there).
    vars: { PG_WS_PROXY: 'ws://127.0.0.1:1' },
    seed: (service) => seedDevData(service, { withMigrate: false }),
    log: (line) => lines.push(line),
  });
  try {
    const auth = host.services.get('auth')!;
    assert.match(lines.join('\n'), /auth: development account demo@example.com/);
    const secret = { 'x-auth-client-secret': 'dev-client-secret', 'content-type': 'application/json' };
    const login = await fetch(`${auth.url}/api/login/`, {
      method: 'POST',
      headers: secret,
      body: JSON.stringify({ email: 'demo@example.com', password: 'demo-password-1' }),
    });
    assert.equal(login.status, 200);
    assert.deepEqual(Object.keys(await login.json()).sort(), ['enrolled', 'pending_token', 'success']);
    const wrong = await fetch(`${auth.url}/api/login/`, {
      method: 'POST',
      headers: secret,
      body: JSON.stringify({ email: 'demo@example.com', password: 'wrong-password-1' }),
    });
    assert.equal(wrong.status, 400);
    await wrong.body?.cancel();
    // run_worker_first: the Worker serves the docs files through env.ASSETS.
    const css = await fetch(`${auth.url}/api/docs/swagger-ui.css`);
    assert.equal(css.status, 200);
    assert.match(css.headers.get('content-type') ?? '', /text\/css/);
    await css.body?.cancel();
    const cron = await fetch(`${auth.url}/__scheduled?cron=${encodeURIComponent('23 * * * *')}`);
    assert.deepEqual([cron.status, await cron.text()], [200, 'Ran scheduled event']);

    const router = host.services.get('router')!;
    const health = await auth.dispatch(new Request('http://auth.localhost/health'));
    const viaRouter = await router.dispatch(new Request('http://auth.localhost/health'));
    assert.equal(viaRouter.status, health.status);
    await health.body?.cancel();
    await viaRouter.body?.cancel();
    const missing = await router.dispatch(new Request('http://stats.localhost/health'));
    assert.equal(missing.status, 404);
    assert.equal((await missing.json()).error, 'service_not_deployed');
  } finally {
    await host.close();
    await Deno.remove(stateDir, { recursive: true });
  }
});
