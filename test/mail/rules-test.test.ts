import { env } from 'cloudflare:workers';
import { drizzle } from 'drizzle-orm/d1';
import { beforeAll, describe, expect, it } from 'vitest';
import * as schema from '#d1/mail/schema.ts';
import { actionRecords } from '../../workers/mail/src/data/rules';
import { type StandinMailbox, type TestSession, connectMailbox, control, directSession, newMailbox, send } from './helpers';

/**
 * Trying rules before trusting them: a test run lists per message the category, why, and the
 * actions, and writes nothing at Graph (the stand-in's request log); "apply to existing mail" is
 * a job that survives Graph throttling in its middle without doing anything twice. Bad input is a
 * clear 4xx, on the JSON routes and on the page.
 */

type LogEntry = { method: string; path: string; status: number };
type Job = { job_id: string; status: string; total: number; done: number; changed: number; error: string | null };
type TestItem = {
  message_id: string;
  subject: string;
  category: string;
  reason: string | null;
  actions: { type: string; description: string }[];
};

let box: StandinMailbox;
let session: TestSession;
let ids: string[];
const db = drizzle(env.DB, { schema });

const call = async <T = unknown>(method: string, path: string, json?: unknown, csrf = true) => {
  const res = await send(path, {
    method,
    cookie: session.cookie,
    ...(csrf ? { csrf: session.csrf } : {}),
    ...(json === undefined ? {} : { json }),
  });
  return { status: res.status, body: (await res.json()) as T };
};
const log = async () => (await control<{ requests: LogEntry[] }>(box, 'GET', '/log')).requests;

beforeAll(async () => {
  // an empty mailbox: its Inbox holds only what the tests deliver
  box = await newMailbox('rules-test', 'empty');
  session = await directSession(box.mail);
  expect((await connectMailbox(session, box)).status).toBe(302);
  expect((await call('POST', '/api/admin/categories', { name: 'Invoices', rule: 'invoice payment remittance supplier' })).status).toBe(201);
  expect((await call('POST', '/api/admin/categories', { name: 'Stewards', rule: 'stewards inquiry report protest' })).status).toBe(201);
  expect(
    (
      await call('PUT', '/api/rules/Invoices', {
        actions: [
          { type: 'categorize', categories: ['Finance'] },
          { type: 'mark_read' },
          { type: 'forward_draft', to: ['books@club.test'] },
        ],
      })
    ).status,
  ).toBe(200);
  const delivered: string[] = [];
  for (const n of [1, 2, 3, 4]) {
    const { value } = await control<{ value: { immutableId: string }[] }>(box, 'POST', '/deliver', {
      subject: `Invoice ${n} for the supplier account`,
      body: `Invoice number ${n}: the payment is due at the end of the month.`,
      from: { name: 'Track Supplies', address: 'accounts@supplies.test' },
    });
    delivered.push(value[0]!.immutableId);
  }
  const { value } = await control<{ value: { immutableId: string }[] }>(box, 'POST', '/deliver', {
    subject: 'Stewards inquiry report',
    body: 'The stewards report from the protest hearing is attached.',
    from: { name: 'Chief Steward', address: 'stewards@club.test' },
  });
  ids = [...delivered, value[0]!.immutableId];
});

describe('test the rules', () => {
  it('lists the category, the reason and the actions of each message, and writes nothing at Graph', async () => {
    await control(box, 'DELETE', '/log');
    const res = await call<{ folder: string; items: TestItem[]; trace_id: string }>('POST', '/api/rules/test', {
      folder: 'inbox',
      count: 10,
    });
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(5);
    const stewards = res.body.items.find((i) => i.subject === 'Stewards inquiry report')!;
    expect(stewards).toMatchObject({ category: 'Stewards', actions: [] });
    expect(stewards.reason).toContain('stewards');
    for (const item of res.body.items.filter((i) => i.subject.startsWith('Invoice'))) {
      expect(item.category).toBe('Invoices');
      expect(item.reason).toMatch(/invoice|payment|supplier/);
      expect(item.actions.map((a) => a.type)).toEqual(['categorize', 'mark_read', 'forward_draft']);
      expect(item.actions[2]!.description).toBe('prepare a forward to books@club.test as a draft (not sent)');
    }
    const entries = await log();
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.filter((r) => r.method !== 'GET')).toEqual([]);
    for (const id of ids) expect(await actionRecords(db, session.userId, id)).toEqual([]);
  });

  it('shows the same on the rules page, and refuses bad input there', async () => {
    const page = await send('/settings/rules/test', {
      method: 'POST',
      cookie: session.cookie,
      form: { csrf_token: session.csrf, folder: 'inbox', count: '5' },
    });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Stewards inquiry report');
    expect(html).toContain('keyword match');
    expect(html).toContain('prepare a forward to books@club.test as a draft (not sent)');
    const bad = await send('/settings/rules/test', {
      method: 'POST',
      cookie: session.cookie,
      form: { csrf_token: session.csrf, folder: 'inbox', count: '99' },
    });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('A whole number from 1 to 25.');
    const missing = await send('/settings/rules/test', {
      method: 'POST',
      cookie: session.cookie,
      form: { csrf_token: session.csrf, folder: 'Nowhere', count: '5' },
    });
    expect(missing.status).toBe(404);
    const badRow = await send('/settings/rules', {
      method: 'POST',
      cookie: session.cookie,
      form: {
        csrf_token: session.csrf,
        category: 'Stewards',
        type_0: 'forward_draft',
        value_0: 'not an address',
        type_1: 'move',
        value_1: '',
      },
    });
    expect(badRow.status).toBe(400);
    const text = await badRow.text();
    expect(text).toContain('E-mail addresses, comma-separated');
    expect(text).toContain('Name the folder.');
    const forged = await send('/settings/rules', {
      method: 'POST',
      cookie: session.cookie,
      form: { category: 'Stewards', type_0: 'archive' },
    });
    expect(forged.status).toBe(403);
    const saved = await send('/settings/rules', {
      method: 'POST',
      cookie: session.cookie,
      form: { csrf_token: session.csrf, category: 'Stewards', type_0: 'flag', value_0: '', type_1: 'move', value_1: 'Archive' },
    });
    expect(saved.status).toBe(303);
    expect((await call<{ items: { category: string; actions: unknown[] }[] }>('GET', '/api/rules')).body.items).toContainEqual({
      category: 'Stewards',
      reply_mode: 'manual',
      actions: [{ type: 'flag' }, { type: 'move', folder: 'Archive' }],
    });
    expect((await call('PUT', '/api/rules/Stewards', { actions: [] })).status).toBe(200);
  });
});

describe('apply to existing mail', () => {
  it('runs as a job, resumes after Graph throttles in its middle, and does nothing twice', async () => {
    await control(box, 'DELETE', '/log');
    // the third message's forward is throttled past the transport's retries: the job waits for Retry-After
    const third = ids[1]!; // the second invoice delivered: the job's fourth message (newest first)
    await control(box, 'POST', '/faults', {
      status: 429,
      retryAfter: 1,
      count: 4,
      method: 'POST',
      pathPrefix: `/me/messages/${third}/createForward`,
    });
    const started = await call<{ job_id: string; total: number }>('POST', '/api/rules/apply', { folder: 'inbox', count: 10 });
    expect(started).toMatchObject({ status: 202, body: { total: 5 } });
    expect((await call('POST', '/api/rules/apply', { folder: 'inbox', count: 10 })).status).toBe(409);
    // while it waits out the throttling, its progress (some of the five done, the rest waiting) shows
    // the same in the API and on the page
    await expect
      .poll(
        async () => {
          const now = (await call<Job>('GET', `/api/admin/jobs/${started.body.job_id}`)).body;
          if (now.status !== 'running' || now.done < 1 || now.done > 4) return false;
          const page = await (await send('/settings/rules', { cookie: session.cookie })).text();
          return page.includes(
            `data-job="${started.body.job_id}" data-status="running"><strong>running</strong>: ${now.done} of 5 messages`,
          );
        },
        { timeout: 20_000, interval: 100 },
      )
      .toBe(true);
    let job: Job | undefined;
    await expect
      .poll(
        async () => {
          job = (await call<Job>('GET', `/api/admin/jobs/${started.body.job_id}`)).body;
          return job.status;
        },
        { timeout: 30_000, interval: 300 },
      )
      .toBe('done');
    expect(job).toMatchObject({ total: 5, done: 5, changed: 4, error: null });
    const entries = await log();
    expect(entries.filter((r) => r.status === 429)).toHaveLength(4);
    for (const id of ids.slice(0, 4)) {
      const mine = entries.filter((r) => r.method !== 'GET' && r.status < 300 && decodeURIComponent(r.path).includes(id));
      expect(mine.filter((r) => r.path.endsWith('/createForward'))).toHaveLength(1);
      expect(mine.filter((r) => r.method === 'PATCH')).toHaveLength(2);
      const records = await actionRecords(db, session.userId, id);
      expect(records.map((r) => [r.status, r.attempts])).toEqual(
        id === third
          ? [
              ['ok', 1],
              ['ok', 1],
              ['ok', 2],
            ]
          : [
              ['ok', 1],
              ['ok', 1],
              ['ok', 1],
            ],
      );
    }
    // the master list got its category once; the stewards' message had no actions
    expect(entries.filter((r) => r.method === 'POST' && r.path.endsWith('/masterCategories') && r.status === 201)).toHaveLength(1);
    expect(entries.filter((r) => r.method !== 'GET' && decodeURIComponent(r.path).includes(ids[4]!))).toEqual([]);
    expect(entries.filter((r) => /\/(send|sendMail)$/.test(r.path))).toEqual([]);
    const page = await (await send('/settings/rules', { cookie: session.cookie })).text();
    expect(page).toContain(`data-job="${started.body.job_id}" data-status="done"`);
  });

  it('refuses bad input with a clear 4xx', async () => {
    const bad = async (method: string, path: string, json: unknown, status = 400) =>
      expect((await call(method, path, json)).status).toBe(status);
    await bad('PUT', '/api/rules/Invoices', { actions: [{ type: 'explode' }] });
    await bad('PUT', '/api/rules/Invoices', { actions: [{ type: 'move' }] });
    await bad('PUT', '/api/rules/Invoices', { actions: [{ type: 'move', folder: 'a\u0000b' }] });
    await bad('PUT', '/api/rules/Invoices', { actions: [{ type: 'forward_draft', to: ['nobody'] }] });
    await bad('PUT', '/api/rules/Invoices', { actions: [{ type: 'categorize', categories: ['x'.repeat(256)] }] });
    await bad('PUT', '/api/rules/Invoices', { actions: Array.from({ length: 11 }, () => ({ type: 'flag' })) });
    await bad('PUT', '/api/rules/Invoices', { actions: [{ type: 'archive', extra: 1 }] });
    await bad('PUT', '/api/rules/Nobody', { actions: [] }, 404);
    await bad('POST', '/api/rules/test', { count: 0 });
    await bad('POST', '/api/rules/test', { count: 26 });
    await bad('POST', '/api/rules/test', { folder: 'Nowhere' }, 404);
    await bad('POST', '/api/rules/apply', { count: 201 });
    expect((await call('PUT', '/api/rules/Invoices', { actions: [] }, false)).status).toBe(403);
    expect((await call<{ items: { category: string; actions: unknown[] }[] }>('GET', '/api/rules')).body.items[0]!.actions).toHaveLength(3);
  });
});

describe('documentation', () => {
  type Operation = { security?: unknown[]; requestBody?: { content: Record<string, unknown> }; responses: Record<string, unknown> };
  it('/openapi.json documents every route of the rules, senders and follow-up settings with its body and its errors', async () => {
    const doc = (await (await send('/openapi.json')).json()) as { paths: Record<string, Record<string, Operation>> };
    const expected: [string, string, boolean, string[]][] = [
      ['/api/rules', 'get', false, ['200', '401', '403']],
      ['/api/rules/{name}', 'put', true, ['200', '400', '401', '403', '404', '413']],
      ['/api/rules/test', 'post', true, ['200', '400', '401', '403', '404', '413', '502']],
      ['/api/rules/apply', 'post', true, ['202', '400', '401', '403', '404', '409', '413', '502']],
      ['/api/admin/jobs/{job_id}', 'get', false, ['200', '401', '404']],
      ['/api/senders', 'get', false, ['200', '400', '401', '403', '502']],
      ['/api/senders/unsubscribe', 'post', true, ['202', '400', '401', '403', '413', '502']],
      ['/api/senders/jobs/{job_id}', 'get', false, ['200', '400', '401', '404']],
      ['/api/inbox-zero', 'get', false, ['200', '401']],
      ['/api/follow-up', 'get', false, ['200', '401', '403']],
      ['/api/follow-up', 'put', true, ['200', '400', '401', '403', '413']],
    ];
    for (const [path, method, body, codes] of expected) {
      const operation = doc.paths[path]?.[method];
      expect(operation, `${method} ${path}`).toBeDefined();
      expect(operation!.security, `${method} ${path}`).toEqual([{ session: [] }]);
      expect(Object.keys(operation!.requestBody?.content ?? {}), `${method} ${path}`).toEqual(body ? ['application/json'] : []);
      expect(Object.keys(operation!.responses), `${method} ${path}`).toEqual(expect.arrayContaining(codes));
    }
    const actions = JSON.stringify(doc);
    for (const type of ['move', 'archive', 'mark_read', 'flag', 'categorize', 'forward_draft', 'draft_reply'])
      expect(actions).toContain(`"${type}"`);
  });

  it('the follow-up setting as JSON: read, set, refused out of range, and only with the anti-forgery token', async () => {
    expect((await call<{ days: number }>('GET', '/api/follow-up')).body).toEqual({ days: 3 });
    expect(await call('PUT', '/api/follow-up', { days: 7 })).toEqual({ status: 200, body: { days: 7 } });
    expect((await call<{ days: number }>('GET', '/api/follow-up')).body).toEqual({ days: 7 });
    for (const days of [0, 61, 2.5, '4', null]) expect((await call('PUT', '/api/follow-up', { days })).status, String(days)).toBe(400);
    expect((await call('PUT', '/api/follow-up', { days: 9 }, false)).status).toBe(403);
    expect((await send('/api/follow-up')).status).toBe(401);
    // the settings page shows what the JSON set
    const settings = await (await send('/settings', { cookie: session.cookie })).text();
    expect(settings).toContain('value="7"');
    // the rules and senders pages are reached from the settings page
    expect(settings).toContain('href="/settings/rules"');
    expect(settings).toContain('href="/senders"');
  });
});
