import { env } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMailApp } from '../../workers/mail/src/app';
import { Semaphore, SlotsBusy, sendGraph } from '../../workers/mail/src/graph/transport';
import { BASE, type StandinMailbox, type TestSession, connectedMailbox, control, directSession, mailbox, send } from './helpers';

/** Reading the mailbox never waits behind background work (new mail, drafts, renewals) for Graph's slots. */

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('the mailbox’s Graph slots', () => {
  it('background work holds at most its share; a freed slot goes to a waiting read first', async () => {
    const slots = new Semaphore(4, 2);
    const granted: string[] = [];
    const take = (name: string, priority: 'read' | 'background') =>
      slots.acquire(priority).then((release) => (granted.push(name), release));
    const bg = [take('bg1', 'background'), take('bg2', 'background'), take('bg3', 'background'), take('bg4', 'background')];
    await tick();
    expect(granted).toEqual(['bg1', 'bg2']);
    const r1 = take('r1', 'read');
    const r2 = take('r2', 'read');
    await tick();
    expect(granted).toEqual(['bg1', 'bg2', 'r1', 'r2']);
    const r3 = take('r3', 'read');
    await tick();
    expect(slots.state).toEqual({ active: 4, activeBackground: 2, waitingReads: 1, waitingBackground: 2, pausedForMs: 0 });
    // a background call ends: the waiting read gets its slot, not the waiting background call
    (await bg[0]!)();
    await tick();
    expect(granted.at(-1)).toBe('r3');
    // a read ends: background may take it (it holds one of its two)
    (await r1)();
    await tick();
    expect(granted.at(-1)).toBe('bg3');
    for (const release of await Promise.all([bg[1]!, r2, r3, bg[2]!])) release();
    await tick();
    expect(granted.at(-1)).toBe('bg4');
    (await bg[3]!)();
    expect(slots.state).toEqual({ active: 0, activeBackground: 0, waitingReads: 0, waitingBackground: 0, pausedForMs: 0 });
  });
});

describe('a retry that runs out of time waiting for Graph’s pause', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('is answered as Graph throttling with Graph’s Retry-After, not as a busy mailbox', async () => {
    // The slot of the retry never comes in time (as when timers fire late on a loaded machine).
    class LateSlots extends Semaphore {
      override acquire(...args: Parameters<Semaphore['acquire']>): Promise<() => void> {
        return args[1]?.retry ? Promise.reject(new SlotsBusy('wait_timeout')) : super.acquire(...args);
      }
    }
    const fetches: string[] = [];
    vi.stubGlobal('fetch', async (url: string) => {
      fetches.push(url);
      return new Response('{"error":{"code":"TooManyRequests","message":"slow down"}}', {
        status: 429,
        headers: { 'retry-after': '30', 'content-type': 'application/json' },
      });
    });
    const settings = {
      GRAPH_BASE_URL: 'http://graph.test',
      GRAPH_TIMEOUT_MS: 1_000,
      GRAPH_DEADLINE_MS: 6_000,
      GRAPH_MAX_RETRIES: 3,
      GRAPH_MAX_RETRY_AFTER_SECONDS: 2,
      GRAPH_MAX_WAITING_READS: 8,
    };
    const result = await sendGraph(
      { method: 'GET', path: '/v1.0/me/mailFolders' },
      { settings, token: async () => 'token', slots: new LateSlots(4, 2) },
    );
    expect(fetches).toHaveLength(1);
    expect(result).toMatchObject({ ok: false, kind: 'unavailable', status: 429, code: 'graph_throttled', retryAfterSeconds: 30 });
  });
});

describe('a thread read while background Graph calls are slow', () => {
  let box: StandinMailbox;
  let session: TestSession;
  beforeAll(async () => {
    ({ mailbox: box, session } = await connectedMailbox('priority'));
  });
  afterEach(async () => {
    await control(box, 'DELETE', '/faults');
  });

  it('is answered before any of six slow background calls', async () => {
    const { value } = await control<{ value: { immutableId: string }[] }>(box, 'POST', '/deliver', {
      subject: 'Track work',
      body: 'The course proper is open from Monday.',
    });
    const id = encodeURIComponent(value[0]!.immutableId);
    // warm: the well-known folders are read once per connection
    expect((await send(`/api/thread/${id}`, { cookie: session.cookie })).status).toBe(200);
    await control(box, 'POST', '/faults', { delayMs: 1200, pathPrefix: '/v1.0/me/mailFolders/junkemail', method: 'GET' });
    const stub = mailbox(session);
    const done: string[] = [];
    const background = Array.from({ length: 6 }, (_, i) =>
      stub.graph({ method: 'GET', path: '/me/mailFolders/junkemail?$select=id', priority: 'background' }).then((r) => {
        expect(r.ok).toBe(true);
        done.push(`background ${i}`);
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const read = send(`/api/thread/${id}`, { cookie: session.cookie }).then((res) => {
      expect(res.status).toBe(200);
      done.push('read');
    });
    await Promise.all([read, ...background]);
    expect(done[0]).toBe('read');
  });
});

describe('development auto-connect', () => {
  const request = async (path: string, cookie: string) => {
    const pending: Promise<unknown>[] = [];
    const res = await createMailApp().request(
      `${BASE}${path}`,
      { headers: { cookie } },
      { ...env, MAIL_DEV_AUTO_CONNECT: 'true' },
      { waitUntil: (p: Promise<unknown>) => void pending.push(p), passThroughOnException: () => {}, props: {} },
    );
    return { res, pending };
  };

  it('the mail client’s page is served with the mailbox connected already', async () => {
    const session = await directSession('demo@example.com');
    expect((await mailbox(session).status()).connected).toBe(false);
    const { res, pending } = await request('/outlook', session.cookie);
    expect(res.status).toBe(200);
    expect((await mailbox(session).status()).connected).toBe(true);
    await Promise.allSettled(pending);
  });

  it('the first requests of a page, at once, all answer', async () => {
    const session = await directSession('demo@example.com');
    const answers = await Promise.all(
      ['/api/folders', '/api/emails/inbox?top=5', '/api/conversation-counts?top=10'].map((path) => request(path, session.cookie)),
    );
    expect(answers.map((a) => a.res.status)).toEqual([200, 200, 200]);
    expect((await mailbox(session).status()).refreshes).toBe(0);
    await Promise.allSettled(answers.flatMap((a) => a.pending));
  });
});
