import { createAuthApp } from '../../workers/auth/src/app.ts';
import { hashPassword, verifyPassword } from '../../workers/auth/src/passwords.ts';
import { signAccessToken } from '../../workers/auth/src/tokens.ts';

export { AccountGuard } from '#durable-objects/account-guard.ts';
export { LiveSession } from '#durable-objects/live-session.ts';
export { PendingLogin } from '#durable-objects/pending-login.ts';

// The auth Worker as deployed, plus two routes that time work inside the isolate for `npm run bench -- auth`.
const app = createAuthApp();

/** workerd's clock only moves across I/O; a zero timer is the cheapest I/O there is. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

async function timed(fn: () => Promise<unknown>): Promise<number> {
  await tick();
  const started = performance.now();
  await fn();
  await tick();
  return performance.now() - started;
}

const count = (value: string | null, fallback: number, max: number) => Math.min(Math.max(Number(value) || fallback, 1), max);

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === '/bench/whoami') {
      // Per-call means over batches (the clock cannot time one call), less the cost of the two ticks.
      const batches = count(url.searchParams.get('batches'), 100, 1000);
      const calls = count(url.searchParams.get('calls'), 50, 1000);
      const token = await signAccessToken(
        { uid: 1, name: 'bench@example.com', perm: 'ADMIN', exp: Math.floor(Date.now() / 1000) + 3600 },
        env.AUTH_TOKEN_SECRET,
      );
      const call = async () => {
        const res = await app.fetch(new Request('https://auth/api/whoami/', { headers: { authorization: `Bearer ${token}` } }), env, ctx);
        if (res.status !== 200) throw new Error(`whoami ${res.status}`);
        await res.arrayBuffer();
      };
      for (let i = 0; i < 50; i++) await call();
      const overhead: number[] = [];
      for (let i = 0; i < 50; i++) overhead.push(await timed(async () => {}));
      overhead.sort((a, b) => a - b);
      const tickMs = overhead[25]!;
      const means: number[] = [];
      for (let b = 0; b < batches; b++) {
        const ms = await timed(async () => {
          for (let i = 0; i < calls; i++) await call();
        });
        means.push(Math.max(0, ms - tickMs) / calls);
      }
      return Response.json({ means, tickMs });
    }
    if (url.pathname === '/bench/password') {
      const runs = count(url.searchParams.get('runs'), 5, 50);
      const stored = url.searchParams.get('hash') ?? hashPassword('bench password');
      const times: number[] = [];
      for (let i = 0; i < runs; i++) {
        times.push(
          await timed(async () => {
            const check = await verifyPassword('bench password', stored);
            if (!check.ok) throw new Error('password did not verify');
          }),
        );
      }
      return Response.json({ times });
    }
    return app.fetch(request, env, ctx);
  },
};
