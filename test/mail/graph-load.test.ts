import { env } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMailApp } from '../../workers/mail/src/app';
import { SharedReads } from '../../workers/mail/src/graph/reads';
import { type GraphRequest, type GraphResult, Semaphore, SlotsBusy } from '../../workers/mail/src/graph/transport';
import { BASE, type StandinMailbox, type TestSession, connectedMailbox, control, mailbox, pumpWebhooks, send } from './helpers';

/**
 * One mailbox read by many at once: identical reads share one Graph call (and a short-lived
 * cache), never more than Graph's 4 calls per mailbox are in flight (the stand-in counts them),
 * reads past the wait queue's depth are answered 503 with Retry-After instead of hanging, and a
 * write or a change notification drops what was cached.
 */

type Summary = { id: string; subject: string; isRead: boolean };
type List = { items: Summary[]; count: number | null };
type GraphLog = { requests: { method: string; path: string; status: number }[]; highWater: number };

// The test project turns the read cache off (the stand-in's own changes reach the Worker only as
// notifications a test hands over); these requests carry the deployed setting, or a longer one.
const withCache = (ms: number) => ({ ...env, GRAPH_READ_CACHE_MS: String(ms) });

async function read(path: string, cookie: string, cacheMs = 2_000): Promise<Response> {
  const pending: Promise<unknown>[] = [];
  const res = await createMailApp().request(`${BASE}${path}`, { headers: { cookie } }, withCache(cacheMs), {
    waitUntil: (p: Promise<unknown>) => void pending.push(p),
    passThroughOnException: () => {},
    props: {},
  });
  await Promise.allSettled(pending);
  return res;
}

const graphLog = (box: StandinMailbox) => control<GraphLog>(box, 'GET', '/log');
/** A change notification of the mailbox as the webhook hands it to the mailbox object. */
const notify = (session: TestSession) =>
  mailbox(session).notified([
    { subscriptionId: 'test', changeType: 'updated', resource: 'me/messages/x', messageId: null, receivedAt: Date.now() },
  ]);

describe('50 concurrent readers of one mailbox', () => {
  let box: StandinMailbox;
  let session: TestSession;
  beforeAll(async () => {
    ({ mailbox: box, session } = await connectedMailbox('graph-load'));
    // the well-known folders are read once per connection
    expect((await read('/api/emails/inbox?top=25', session.cookie)).status).toBe(200);
  });
  afterEach(async () => {
    await control(box, 'DELETE', '/faults');
  });

  it('all answer the same page, from one Graph call per URL, with at most 4 calls in flight', async () => {
    await notify(session);
    await control(box, 'DELETE', '/log');
    // Graph slow enough that every reader arrives while the first call is in flight.
    await control(box, 'POST', '/faults', { delayMs: 400, pathPrefix: '/v1.0/me/mailFolders/inbox', method: 'GET', count: 1000 });
    const answers = await Promise.all(Array.from({ length: 50 }, () => read('/api/emails/inbox?top=25', session.cookie)));
    expect(answers.map((r) => r.status)).toEqual(Array(50).fill(200));
    const pages = await Promise.all(answers.map(async (r) => ((await r.json()) as List).items.map((m) => m.id)));
    expect(pages[0]!.length).toBeGreaterThan(0);
    for (const page of pages) expect(page).toEqual(pages[0]);
    const log = await graphLog(box);
    const calls = log.requests.filter((r) => r.path.startsWith('/v1.0/me/mailFolders/inbox'));
    // the folder and its first page: one call each (a few more only if readers straggled past the cache's 2 s)
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(calls.length).toBeLessThanOrEqual(6);
    expect(log.highWater).toBeLessThanOrEqual(4);
  });

  it('30 different reads at once: never more than 4 calls in flight, each answered (404 for the unknown ids)', async () => {
    await control(box, 'DELETE', '/log');
    await control(box, 'POST', '/faults', { delayMs: 100, pathPrefix: '/v1.0/me/messages/', method: 'GET', count: 1000 });
    const list = (await (await read('/api/emails/inbox?top=10', session.cookie)).json()) as List;
    const ids = [...list.items.map((m) => m.id), ...Array.from({ length: 30 - list.items.length }, (_, i) => `unknown-message-${i}`)];
    const answers = await Promise.all(ids.map((id) => read(`/api/email/${encodeURIComponent(id)}`, session.cookie)));
    expect(answers.map((r) => r.status)).toEqual(ids.map((id) => (id.startsWith('unknown-') ? 404 : 200)));
    const log = await graphLog(box);
    expect(log.requests.filter((r) => r.path.startsWith('/v1.0/me/messages/')).length).toBe(ids.length);
    expect(log.highWater).toBeLessThanOrEqual(4);
    expect(log.highWater).toBeGreaterThanOrEqual(2);
  });

  it('reads past the wait queue answer 503 with Retry-After at once, the rest are answered, none hangs', async () => {
    await control(box, 'DELETE', '/log');
    await control(box, 'POST', '/faults', { delayMs: 300, pathPrefix: '/v1.0/me/messages/', method: 'GET', count: 1000 });
    // 4 in flight and 32 waiting (GRAPH_MAX_WAITING_READS): of 60 different reads, some are turned away
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        read(`/api/email/busy-${i}`, session.cookie).then(async (res) => ({ res, ms: Date.now() - started, body: await res.json() })),
      ),
    );
    const busy = answers.filter((a) => a.res.status === 503);
    expect(answers.every((a) => a.res.status === 404 || a.res.status === 503)).toBe(true);
    expect(busy.length).toBeGreaterThan(0);
    expect(answers.filter((a) => a.res.status === 404).length).toBeGreaterThanOrEqual(36);
    for (const { res, body } of busy) {
      expect(res.headers.get('retry-after')).toBe('1');
      expect(body).toMatchObject({ error: 'mailbox_busy' });
    }
    // the refused ones did not wait for the queue to drain
    expect(Math.min(...busy.map((a) => a.ms))).toBeLessThan(Math.max(...answers.map((a) => a.ms)));
    const log = await graphLog(box);
    expect(log.highWater).toBeLessThanOrEqual(4);
    expect(log.requests.filter((r) => r.path.startsWith('/v1.0/me/messages/')).length).toBe(60 - busy.length);
  });

  it('Graph throttling: readers who joined a throttled call get their own retries, and are answered', async () => {
    const { items } = (await (await read('/api/emails/inbox?top=5', session.cookie)).json()) as List;
    const path = `/api/email/${encodeURIComponent(items[0]!.id)}`;
    await control(box, 'DELETE', '/log');
    // Graph refuses the message's next 4 calls (429, Retry-After: 1, each after 400 ms): all of the
    // first reader's attempts (1 + GRAPH_MAX_RETRIES 3, about 4.6 s of the 6 s deadline), then it
    // serves the message.
    await control(box, 'POST', '/faults', {
      status: 429,
      retryAfter: 1,
      count: 4,
      delayMs: 400,
      pathPrefix: '/v1.0/me/messages/',
      method: 'GET',
    });
    const first = read(path, session.cookie);
    // 49 more arrive once that call has had its first refusal: they join it, and it ends throttled
    // with their own retries (and deadline) barely begun
    await expect.poll(async () => (await graphLog(box)).requests.some((r) => r.status === 429), { interval: 50 }).toBe(true);
    const rest = await Promise.all(Array.from({ length: 49 }, () => read(path, session.cookie)));
    const alone = await first;
    // the first reader had all its retries refused, as it would have alone
    expect(alone.status).toBe(502);
    expect(await alone.json()).toMatchObject({ error: 'graph_unavailable', graph_status: 429 });
    expect(rest.map((r) => r.status)).toEqual(Array(49).fill(200));
    const log = await graphLog(box);
    const calls = log.requests.filter((r) => r.path.startsWith('/v1.0/me/messages/'));
    // 4 refused, then one call for the 49 (a second only if one straggled past the cache)
    expect(calls.filter((r) => r.status === 429)).toHaveLength(4);
    expect(calls.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(1);
    expect(calls.filter((r) => r.status === 200).length).toBeLessThanOrEqual(2);
    expect(log.highWater).toBeLessThanOrEqual(4);
  });

  it("Graph's Retry-After holds every call of the mailbox: a read sent meanwhile waits it out instead of being refused", async () => {
    const { items } = (await (await read('/api/emails/inbox?top=5', session.cookie)).json()) as List;
    await control(box, 'DELETE', '/log');
    // Retry-After: 2 (the test project's cap)
    await control(box, 'POST', '/faults', { status: 429, retryAfter: 2, count: 1, pathPrefix: '/v1.0/me/messages/', method: 'GET' });
    const throttled = read(`/api/email/${encodeURIComponent(items[1]!.id)}`, session.cookie, 0);
    await expect.poll(async () => (await graphLog(box)).requests.some((r) => r.status === 429), { interval: 20 }).toBe(true);
    const started = Date.now();
    const other = await read(`/api/email/${encodeURIComponent(items[2]!.id)}`, session.cookie, 0);
    // the other read went to Graph only once the wait was over (it came well inside it), and was not refused
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_200);
    expect(other.status).toBe(200);
    expect((await throttled).status).toBe(200);
    const calls = (await graphLog(box)).requests.filter((r) => r.path.startsWith('/v1.0/me/messages/'));
    expect(calls.map((r) => r.status).sort()).toEqual([200, 200, 429]);
  });
});

describe('the read cache', () => {
  let box: StandinMailbox;
  let session: TestSession;
  beforeAll(async () => {
    ({ mailbox: box, session } = await connectedMailbox('graph-cache'));
  });
  const subjects = async () =>
    ((await (await read('/api/emails/inbox?top=50', session.cookie, 20_000)).json()) as List).items.map((m) => m.subject);

  it('serves a repeated read, and a write through the mailbox drops it', async () => {
    const before = await subjects();
    await control(box, 'POST', '/deliver', { subject: 'Acceptances for Saturday' });
    // Graph has the new message; the cached page does not, and no call was made for it
    await control(box, 'DELETE', '/log');
    expect(await subjects()).toEqual(before);
    expect((await graphLog(box)).requests.filter((r) => r.path.startsWith('/v1.0/me/mailFolders/inbox'))).toEqual([]);
    // a write of the mailbox (mark read): the next read goes to Graph and sees both changes
    const target = ((await (await read('/api/emails/inbox?top=50', session.cookie, 20_000)).json()) as List).items.find((m) => !m.isRead);
    expect(target).toBeDefined();
    const marked = await send(`/api/mark-read/${encodeURIComponent(target!.id)}`, {
      method: 'POST',
      cookie: session.cookie,
      csrf: session.csrf,
      json: { isRead: true },
    });
    expect(marked.status).toBe(200);
    const after = (await (await read('/api/emails/inbox?top=50', session.cookie, 20_000)).json()) as List;
    expect(after.items.map((m) => m.subject)).toContain('Acceptances for Saturday');
    expect(after.items.find((m) => m.id === target!.id)?.isRead).toBe(true);
  });

  it('a change notification from Graph drops it', async () => {
    const before = await subjects();
    await control(box, 'POST', '/deliver', { subject: 'Scratchings, race 4' });
    expect(await subjects()).toEqual(before);
    // the stand-in's notification of the new message, through the Worker's webhook
    await control(box, 'DELETE', '/deliveries');
    const pump = pumpWebhooks(box);
    try {
      await expect.poll(subjects).toContain('Scratchings, race 4');
    } finally {
      await pump.stop();
    }
  });

  it('a message read repeatedly within its age is answered from the cache; with the cache off every read asks Graph', async () => {
    const { items } = (await (await read('/api/emails/inbox?top=5', session.cookie)).json()) as List;
    // The oldest of the five: mail delivered by the tests above may still be read by the mailbox's
    // own processing, which would count here.
    const id = items.at(-1)!.id;
    const path = `/api/email/${encodeURIComponent(id)}`;
    await control(box, 'DELETE', '/log');
    for (let i = 0; i < 3; i++) expect((await read(path, session.cookie, 20_000)).status).toBe(200);
    const graphPaths = [id, encodeURIComponent(id)].map((form) => `/v1.0/me/messages/${form}`);
    const messageCalls = async () => (await graphLog(box)).requests.filter((r) => graphPaths.some((p) => r.path.startsWith(p))).length;
    expect(await messageCalls()).toBe(1);
    for (let i = 0; i < 3; i++) expect((await read(path, session.cookie, 0)).status).toBe(200);
    expect(await messageCalls()).toBe(4);
  });
});

describe('the shared reads and the slots, alone', () => {
  const ok = (n: number) => ({ ok: true as const, status: 200, json: { n }, size: 10 });

  it('identical reads in flight make one call; a write in between detaches them and drops the cache', async () => {
    let now = 0;
    const reads = new SharedReads(() => now);
    let calls = 0;
    const finishers: (() => void)[] = [];
    const call = () =>
      new Promise<ReturnType<typeof ok>>((resolve) => {
        const n = ++calls;
        finishers.push(() => resolve(ok(n)));
      });
    const get = { method: 'GET' as const, path: '/me/messages/a', maxAgeMs: 1_000 };
    const first = [reads.send(get, call), reads.send(get, call), reads.send(get, call)];
    expect(calls).toBe(1);
    finishers[0]!();
    const answers = await Promise.all(first);
    expect(answers.map((a) => (a.ok ? a.json : undefined))).toEqual([{ n: 1 }, { n: 1 }, { n: 1 }]);
    // each caller has its own copy
    expect(answers[0]).not.toBe(answers[1]);
    expect(reads.saved.joined).toBe(2);
    // cached within its age, not past it
    now = 900;
    expect(await reads.send(get, call)).toMatchObject({ json: { n: 1 } });
    now = 1_001;
    const late = reads.send(get, call);
    expect(calls).toBe(2);
    // a write while that read is in flight: a read during the write is not joined to the older flight
    const write = reads.send({ method: 'PATCH', path: '/me/messages/a', body: {} }, async () => ok(0));
    const during = reads.send(get, call);
    expect(calls).toBe(3);
    await write;
    const after = reads.send(get, call);
    expect(calls).toBe(4);
    // neither the read begun before the write nor the one during it is kept; the one after it is
    finishers[1]!();
    expect(await late).toMatchObject({ json: { n: 2 } });
    finishers[2]!();
    expect(await during).toMatchObject({ json: { n: 3 } });
    expect(reads.size).toBe(0);
    finishers[3]!();
    expect(await after).toMatchObject({ json: { n: 4 } });
    expect(reads.size).toBe(1);
    expect(await reads.send(get, call)).toMatchObject({ json: { n: 4 } });
    expect(calls).toBe(4);
  });

  it('a read finding the queue full is refused at once; one waiting past its time is refused then', async () => {
    const slots = new Semaphore(1);
    const held = await slots.acquire('read', { maxWaitingReads: 1 });
    const waiting = slots.acquire('read', { maxWaitingReads: 1 });
    await expect(slots.acquire('read', { maxWaitingReads: 1 })).rejects.toThrow(SlotsBusy);
    // background work is not bounded by the reads' queue
    const background = slots.acquire('background', { maxWaitingReads: 1 });
    await expect(slots.acquire('read', { waitMs: 20 })).rejects.toMatchObject({ reason: 'wait_timeout' });
    expect(slots.state).toMatchObject({ active: 1, waitingReads: 1, waitingBackground: 1 });
    held();
    (await waiting)();
    (await background)();
    expect(slots.state).toEqual({ active: 0, activeBackground: 0, waitingReads: 0, waitingBackground: 0, pausedForMs: 0 });
  });

  it('a pause hands out no slot until it ends; a retry goes first and is not refused for the queue', async () => {
    const slots = new Semaphore(2);
    slots.pause(150);
    const started = Date.now();
    const order: string[] = [];
    const fresh = slots.acquire('read', { maxWaitingReads: 1 }).then((release) => (order.push('fresh'), release));
    // the queue is full while paused (one waiting): a new read is refused, a retry is not
    await expect(slots.acquire('read', { maxWaitingReads: 1 })).rejects.toMatchObject({ reason: 'queue_full' });
    const retry = slots.acquire('read', { maxWaitingReads: 1, retry: true }).then((release) => (order.push('retry'), release));
    expect(slots.state).toMatchObject({ active: 0, waitingReads: 2 });
    const releases = await Promise.all([retry, fresh]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(order).toEqual(['retry', 'fresh']);
    for (const release of releases) release();
    expect(slots.state).toMatchObject({ active: 0, waitingReads: 0, pausedForMs: 0 });
  });

  it('a caller who joined a throttled call asks again with the retries and time it has left; one there from its start does not', async () => {
    const reads = new SharedReads();
    const get = { method: 'GET' as const, path: '/me/messages/b' };
    const seen: GraphRequest[] = [];
    let finish: (result: GraphResult) => void = () => {};
    const call = (request: GraphRequest) => {
      seen.push(request);
      return new Promise<GraphResult>((resolve) => {
        finish = resolve;
      });
    };
    const leader = reads.send(get, call);
    const early = reads.send(get, call);
    // the call began, and was first throttled, no earlier than these two came
    const began = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 30));
    const late = reads.send(get, call);
    await new Promise((resolve) => setTimeout(resolve, 30));
    // the call's four throttled answers: two before the late caller came, two after
    const at = [began, began + 1, Date.now() - 5, Date.now()];
    finish({
      ok: false,
      kind: 'unavailable',
      status: 429,
      code: 'TooManyRequests',
      message: 'throttled',
      retryAfterSeconds: 1,
      throttled: { at, since: began, deadlineAt: began + 6_000, maxRetries: 3 },
    });
    expect(await leader).toMatchObject({ ok: false, status: 429 });
    expect(await early).toMatchObject({ ok: false, status: 429 });
    // the late caller asks again, its own: one retry used (its second answer), its deadline from its arrival
    await expect.poll(() => seen.length).toBe(2);
    expect(seen[1]).toMatchObject({ path: '/me/messages/b', retriesUsed: 1 });
    expect(seen[1]!.since).toBeGreaterThanOrEqual(began + 25);
    finish({ ok: true, status: 200, json: { id: 'b' }, size: 10 });
    expect(await late).toMatchObject({ ok: true, json: { id: 'b' } });
  });
});
