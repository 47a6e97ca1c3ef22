import { runInDurableObject } from 'cloudflare:test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type StandinMailbox, type TestSession, connectedMailbox, control, mailbox, send } from './helpers';

/** The Graph client through the mailbox Durable Object: throttling, failures, token refresh, concurrency. */

let box: StandinMailbox;
let session: TestSession;

beforeEach(async () => {
  ({ mailbox: box, session } = await connectedMailbox('graph'));
  await control(box, 'DELETE', '/log');
}, 30_000);

afterEach(async () => {
  await control(box, 'DELETE', '/faults');
});

const inbox = () => send('/api/emails/inbox?top=5', { cookie: session.cookie });
type Log = {
  requests: { method: string; path: string; status: number }[];
  highWater: number;
  highWaterByToken: Record<string, number>;
  refreshGrants: number;
};
const log = () => control<Log>(box, 'GET', '/log');
const graphCalls = async (prefix: string) => (await log()).requests.filter((r) => r.path.includes(prefix));

describe('throttling', () => {
  it('a 429 with Retry-After is waited out and retried', async () => {
    await control(box, 'POST', '/faults', { status: 429, count: 2, retryAfter: 1, pathPrefix: '/v1.0/me/mailFolders' });
    const started = Date.now();
    const res = await inbox();
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    const statuses = (await graphCalls('/me/mailFolders')).map((c) => c.status);
    expect(statuses.filter((s) => s === 429)).toHaveLength(2);
    expect(statuses.at(-1)).toBe(200);
  });

  it('a 503 with Retry-After is retried too', async () => {
    await control(box, 'POST', '/faults', { status: 503, count: 1, retryAfter: 1, pathPrefix: '/v1.0/me/mailFolders' });
    expect((await inbox()).status).toBe(200);
  });

  it('throttling that outlasts the retries is a 502 with Retry-After, not a hang', async () => {
    await control(box, 'POST', '/faults', { status: 429, retryAfter: 30, pathPrefix: '/v1.0/me/mailFolders' });
    const started = Date.now();
    const res = await inbox();
    expect(res.status).toBe(502);
    expect(res.headers.get('retry-after')).toBe('30');
    expect(await res.json()).toMatchObject({ error: 'graph_unavailable', graph_status: 429 });
    // Retry-After waits are capped (2 s here) and bounded by the deadline (6 s).
    expect(Date.now() - started).toBeLessThan(8_000);
  });
});

describe('failures', () => {
  it('a Graph outage (500) is a clear 502', async () => {
    await control(box, 'POST', '/faults', { status: 500, pathPrefix: '/v1.0/me' });
    for (const path of ['/api/folders', '/api/emails/inbox', '/api/conversation-counts', '/api/people?q=sm']) {
      const res = await send(path, { cookie: session.cookie });
      expect(res.status, path).toBe(502);
      expect(await res.json()).toMatchObject({ error: 'graph_unavailable' });
    }
  });

  it('a dropped connection is a 502', async () => {
    await control(box, 'POST', '/faults', { status: 0, pathPrefix: '/v1.0/me/mailFolders' });
    expect((await send('/api/folders', { cookie: session.cookie })).status).toBe(502);
  });

  it('a Graph that does not answer is a 502 within the timeout, never a hang', async () => {
    await control(box, 'POST', '/faults', { delayMs: 20_000, pathPrefix: '/v1.0/me/mailFolders' });
    const started = Date.now();
    const res = await inbox();
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ error: 'graph_unavailable', graph_code: 'graph_timeout' });
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it('a failed write changes nothing and is a 502', async () => {
    const page = (await (await inbox()).json()) as { items: { id: string }[] };
    await control(box, 'POST', '/faults', { status: 500, pathPrefix: '/v1.0/me/messages', method: 'POST' });
    const res = await send(`/api/messages/${page.items[0]!.id}/archive`, { method: 'POST', cookie: session.cookie, csrf: session.csrf });
    expect(res.status).toBe(502);
    await control(box, 'DELETE', '/faults');
    const message = (await (await send(`/api/email/${page.items[0]!.id}`, { cookie: session.cookie })).json()) as { folder: string };
    expect(message.folder).toBe('inbox');
  });
});

describe('concurrency', () => {
  it('at most 4 Graph requests are in flight for the mailbox, however many arrive', async () => {
    await control(box, 'POST', '/faults', { delayMs: 150, pathPrefix: '/v1.0/me' });
    const answers = await Promise.all(Array.from({ length: 12 }, () => inbox()));
    expect(answers.every((r) => r.status === 200)).toBe(true);
    const { highWater } = await log();
    expect(highWater).toBeGreaterThanOrEqual(2);
    expect(highWater).toBeLessThanOrEqual(4);
  });
});

describe('the mailbox token', () => {
  it('is refreshed when it expires, and the rotated refresh token is kept sealed', async () => {
    await control(box, 'POST', '/tokens', { accessTokenLifetime: 2 });
    ({ mailbox: box, session } = await reconnect());
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const before = (await control<Log>(box, 'GET', '/log')).refreshGrants;
    expect((await inbox()).status).toBe(200);
    expect((await control<Log>(box, 'GET', '/log')).refreshGrants).toBe(before + 1);
    await runInDurableObject(mailbox(session), async (_instance, state) => {
      const stored = await state.storage.get<{ refreshSealed: string; refreshes: number }>('connection');
      expect(stored!.refreshSealed).toMatch(/^v1\./);
      expect(stored!.refreshes).toBeGreaterThanOrEqual(1);
    });
  });

  it('concurrent requests after expiry refresh once', async () => {
    await control(box, 'POST', '/tokens', { accessTokenLifetime: 2, refreshTokenReuse: 'reject' });
    ({ mailbox: box, session } = await reconnect());
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const before = (await control<Log>(box, 'GET', '/log')).refreshGrants;
    const answers = await Promise.all(Array.from({ length: 8 }, () => inbox()));
    expect(answers.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect((await control<Log>(box, 'GET', '/log')).refreshGrants).toBe(before + 1);
  });

  it('a 401 from Graph (token withdrawn) renews the token once and goes on', async () => {
    await control(box, 'POST', '/tokens/expire');
    expect((await inbox()).status).toBe(200);
  });

  it('a revoked refresh token disconnects the mailbox: 401 JSON, not a 500', async () => {
    await control(box, 'POST', '/tokens/revoke');
    const res = await inbox();
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'mailbox_not_connected' });
    expect(await (await send('/api/auth-status')).json()).toEqual({ authenticated: false });
  });
});

/** Connects again (the stand-in's token settings apply to tokens issued from now on). */
async function reconnect() {
  const { connectMailbox } = await import('./helpers');
  const res = await connectMailbox(session, box);
  expect(res.status).toBe(302);
  return { mailbox: box, session };
}
