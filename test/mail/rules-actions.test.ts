import { env } from 'cloudflare:workers';
import { drizzle } from 'drizzle-orm/d1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as schema from '#d1/mail/schema.ts';
import { actionRecords } from '../../workers/mail/src/data/rules';
import { type Pump, type StandinMailbox, type TestSession, connectedMailbox, control, mailbox, pumpWebhooks, send } from './helpers';

/**
 * Rules that act, end to end: a message delivered at the Graph stand-in, its notification handed
 * to the Worker's webhook, the mailbox object's queue classifying it, and each action of its
 * category seen at the stand-in (and in the message's trace). A throttled action is retried after
 * Retry-After without repeating the actions done before it.
 */

type LogEntry = { method: string; path: string; status: number };

let box: StandinMailbox;
let session: TestSession;
let pump: Pump;
const db = drizzle(env.DB, { schema });

const call = async <T = unknown>(method: string, path: string, json?: unknown) => {
  const res = await send(path, { method, cookie: session.cookie, csrf: session.csrf, ...(json === undefined ? {} : { json }) });
  return { status: res.status, body: (await res.json()) as T };
};
const graphGet = async <T>(path: string): Promise<T> => {
  const result = await mailbox(session).graph({ method: 'GET', path });
  if (!result.ok) throw new Error(`${path}: ${result.status} ${result.message}`);
  if (!('json' in result)) throw new Error(`${path}: ${result.status} without a body`);
  return result.json as T;
};
const log = async () => (await control<{ requests: LogEntry[] }>(box, 'GET', '/log')).requests;
const writesOf = (entries: LogEntry[], id: string) =>
  entries.filter((r) => r.method !== 'GET' && decodeURIComponent(r.path).includes(id) && r.status < 300);

async function deliver(subject: string, body: string, from: string): Promise<string> {
  const { value } = await control<{ value: { immutableId: string }[] }>(box, 'POST', '/deliver', {
    subject,
    body,
    from: { name: from.split('@')[0], address: from },
  });
  return value[0]!.immutableId;
}

/** Waits until every action of the message is recorded ok (the queue ran its category's rules). */
async function actionsDone(id: string, count: number) {
  await expect
    .poll(async () => (await actionRecords(db, session.userId, id)).filter((r) => r.status === 'ok').length, {
      timeout: 25_000,
      interval: 300,
    })
    .toBe(count);
  return actionRecords(db, session.userId, id);
}

beforeAll(async () => {
  ({ mailbox: box, session } = await connectedMailbox('rules-actions'));
  for (const category of [
    { name: 'Invoices', rule: 'invoice payment remittance supplier', reply_mode: 'no_reply' },
    { name: 'Press', rule: 'interview accreditation photographer journalist', reply_mode: 'manual' },
  ])
    expect((await call('POST', '/api/admin/categories', category)).status).toBe(201);
  const invoices = await call('PUT', '/api/rules/Invoices', {
    actions: [
      { type: 'categorize', categories: ['Finance', 'Paid later'] },
      { type: 'mark_read' },
      { type: 'flag' },
      { type: 'move', folder: 'Invoices' },
    ],
  });
  expect(invoices).toMatchObject({
    status: 200,
    body: { category: 'Invoices', actions: [{ type: 'categorize' }, {}, {}, { folder: 'Invoices' }] },
  });
  const press = await call('PUT', '/api/rules/Press', {
    actions: [
      { type: 'categorize', categories: ['Press desk'], color: 'preset7' },
      { type: 'forward_draft', to: ['desk@press.test'], comment: 'For the desk' },
      { type: 'draft_reply' },
      { type: 'archive' },
    ],
  });
  expect(press.status).toBe(200);
  pump = pumpWebhooks(box);
});

afterAll(async () => {
  await pump?.stop();
});

describe('rule actions on new mail', () => {
  it('moves, marks read, flags and sets Outlook categories (added to the master list with a colour)', async () => {
    const id = await deliver('Invoice 5521 payment due', 'Please find the invoice for the supplier payment, due Friday.', 'ar@feed.test');
    const records = await actionsDone(id, 4);
    expect(records.map((r) => [r.actionIndex, r.status])).toEqual([
      [0, 'ok'],
      [1, 'ok'],
      [2, 'ok'],
      [3, 'ok'],
    ]);
    const message = await graphGet<{ isRead: boolean; flag: { flagStatus: string }; categories: string[]; parentFolderId: string }>(
      `/me/messages/${encodeURIComponent(id)}?$select=isRead,flag,categories,parentFolderId`,
    );
    const folders = (await (await send('/api/folders', { cookie: session.cookie })).json()) as { folders: { id: string; name: string }[] };
    expect(message).toMatchObject({
      isRead: true,
      flag: { flagStatus: 'flagged' },
      categories: ['Finance', 'Paid later'],
      parentFolderId: folders.folders.find((f) => f.name === 'Invoices')!.id,
    });
    const master = await graphGet<{ value: { displayName: string; color: string }[] }>('/me/outlook/masterCategories');
    expect(master.value.map((c) => c.displayName).sort()).toEqual(['Finance', 'Paid later']);
    for (const c of master.value) expect(c.color).toMatch(/^preset\d+$/);
    // every action is a step of the message's trace, with its outcome
    const trace = await (await send(`/api/traces/${records[0]!.traceId}`, { cookie: session.cookie })).json();
    const steps = (trace as { steps: { kind: string; name: string; outcome: string }[] }).steps.filter((s) => s.kind === 'action');
    expect(steps.map((s) => [s.name, s.outcome])).toEqual([
      ['action 1: set the Outlook categories “Finance”, “Paid later”', 'ok'],
      ['action 2: mark read', 'ok'],
      ['action 3: flag for follow-up', 'ok'],
      ['action 4: move to “Invoices”', 'ok'],
    ]);
  });

  it('sets a category in the colour the rule names, forwards as a draft, drafts a reply and archives: nothing is sent', async () => {
    const sentBefore = (await graphGet<{ totalItemCount: number }>('/me/mailFolders/sentitems?$select=totalItemCount')).totalItemCount;
    const id = await deliver('Interview and accreditation', 'Could our photographer get accreditation and an interview?', 'pat@press.test');
    await actionsDone(id, 4);
    const master = await graphGet<{ value: { displayName: string; color: string }[] }>('/me/outlook/masterCategories');
    expect(master.value.find((c) => c.displayName === 'Press desk')).toMatchObject({ color: 'preset7' });
    const email = (await (await send(`/api/email/${encodeURIComponent(id)}`, { cookie: session.cookie })).json()) as { folder: string };
    expect(email.folder).toBe('archive');
    const drafts = await graphGet<{
      value: { subject: string; isDraft: boolean; toRecipients: { emailAddress: { address: string } }[] }[];
    }>(`/me/mailFolders/drafts/messages?$select=subject,isDraft,toRecipients&$top=100`);
    const forward = drafts.value.filter((d) => d.subject === 'FW: Interview and accreditation');
    expect(forward).toHaveLength(1);
    expect(forward[0]).toMatchObject({ isDraft: true, toRecipients: [{ emailAddress: { address: 'desk@press.test' } }] });
    expect(drafts.value.filter((d) => d.subject === 'RE: Interview and accreditation')).toHaveLength(1);
    expect((await send(`/api/draft/find?email_id=${encodeURIComponent(id)}`, { cookie: session.cookie })).status).toBe(200);
    // never sent
    const entries = await log();
    expect(entries.filter((r) => /\/(send|sendMail|forward|reply|replyAll)$/i.test(r.path))).toEqual([]);
    expect((await graphGet<{ totalItemCount: number }>('/me/mailFolders/sentitems?$select=totalItemCount')).totalItemCount).toBe(
      sentBefore,
    );
  });

  it('retries an action Graph throttles after its Retry-After, never repeating those done', async () => {
    await control(box, 'DELETE', '/log');
    // the message's first PATCH (its categories) is refused until the transport's retries are spent (1 + 3)
    await control(box, 'POST', '/faults', { status: 429, retryAfter: 1, count: 4, method: 'PATCH', pathPrefix: '/me/messages' });
    const id = await deliver('Remittance for invoice 7730', 'Remittance advice: the supplier payment for invoice 7730.', 'ap@feed.test');
    const records = await actionsDone(id, 4);
    expect(records.find((r) => r.actionIndex === 0)!.attempts).toBe(2);
    expect(records.filter((r) => r.actionIndex > 0).map((r) => r.attempts)).toEqual([1, 1, 1]);
    const entries = await log();
    const writes = writesOf(entries, id);
    // the categories once, read once, flagged once, moved once: each at most once despite the retry
    expect(writes.filter((r) => r.method === 'PATCH')).toHaveLength(3);
    expect(writes.filter((r) => r.method === 'POST' && r.path.endsWith('/move'))).toHaveLength(1);
    expect(entries.filter((r) => r.method === 'PATCH' && r.status === 429).length).toBe(4);
    // the master list had the categories already: nothing added
    expect(entries.filter((r) => r.method === 'POST' && r.path.includes('masterCategories'))).toEqual([]);
    const trace = await (await send(`/api/traces/${records[0]!.traceId}`, { cookie: session.cookie })).json();
    expect(
      (trace as { steps: { kind: string; outcome: string }[] }).steps.filter((s) => s.kind === 'action').map((s) => s.outcome),
    ).toEqual(['ok', 'ok', 'ok', 'ok']);
  });

  it('a throttled last action is retried alone: the three done before it are skipped, not repeated', async () => {
    await control(box, 'DELETE', '/log');
    // the move (the rule's fourth action, the message's only POST under /me/messages) is refused
    // until the transport's retries are spent; the categories, read and flag before it succeed
    await control(box, 'POST', '/faults', { status: 429, retryAfter: 1, count: 4, method: 'POST', pathPrefix: '/me/messages' });
    const id = await deliver('Supplier invoice 8812', 'The supplier invoice 8812: payment by the end of the month.', 'billing@feed.test');
    const records = await actionsDone(id, 4);
    expect(records.map((r) => r.attempts)).toEqual([1, 1, 1, 2]);
    const entries = await log();
    const writes = writesOf(entries, id);
    expect(writes.filter((r) => r.method === 'PATCH')).toHaveLength(3);
    expect(writes.filter((r) => r.method === 'POST' && r.path.endsWith('/move'))).toHaveLength(1);
    expect(entries.filter((r) => r.method === 'POST' && r.status === 429 && decodeURIComponent(r.path).includes(id))).toHaveLength(4);
    const steps = async (traceId: string) =>
      (
        (await (await send(`/api/traces/${traceId}`, { cookie: session.cookie })).json()) as {
          steps: { kind: string; name: string; outcome: string }[];
        }
      ).steps
        .filter((s) => s.kind === 'action')
        .map((s) => s.outcome);
    // the first run: three done, the move deferred; the retry's trace: three skipped, the move done
    expect(records[0]!.traceId).not.toBe(records[3]!.traceId);
    expect(await steps(records[0]!.traceId)).toEqual(['ok', 'ok', 'ok', 'deferred']);
    expect(await steps(records[3]!.traceId)).toEqual(['skipped', 'skipped', 'skipped', 'ok']);
  });
});
