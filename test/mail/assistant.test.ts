import { env } from 'cloudflare:workers';
import { drizzle } from 'drizzle-orm/d1';
import { beforeAll, describe, expect, it } from 'vitest';
import * as schema from '#d1/mail/schema.ts';
import { aiPrompts } from '#d1/mail/schema.ts';
import { createRecategoriseJob } from '../../workers/mail/src/ai/jobs';
import { type StandinMailbox, type TestSession, connectedMailbox, control, directSession, mailbox, pumpWebhooks, send } from './helpers';

type Item = { id: string; subject: string; from: { address: string } | null };
type Summary = {
  message_id: string;
  category: string;
  summary: string;
  pinned: boolean;
  needs_reply: boolean;
  direction: string;
  recipients: unknown[];
};
type Job = { job_id: string; status: string; total: number; done: number; changed: number };

let box: StandinMailbox;
let session: TestSession;
let inbox: Item[];

const get = async <T = unknown>(path: string, s = session) => {
  const res = await send(path, { cookie: s.cookie });
  return { status: res.status, body: (await res.json()) as T };
};
const call = async <T = unknown>(method: string, path: string, json?: unknown, s = session) => {
  const res = await send(path, { method, cookie: s.cookie, csrf: s.csrf, ...(json === undefined ? {} : { json }) });
  return { status: res.status, body: (await res.json()) as T };
};
const bySubject = (part: string) => {
  const found = inbox.find((m) => m.subject.includes(part));
  if (!found) throw new Error(`no seeded message with "${part}"`);
  return found;
};
async function jobDone(jobId: string): Promise<Job> {
  let job: Job | undefined;
  await expect
    .poll(
      async () => {
        job = (await get<Job>(`/api/admin/jobs/${jobId}`)).body;
        return job.status;
      },
      { timeout: 15_000, interval: 200 },
    )
    .toBe('done');
  return job!;
}

beforeAll(async () => {
  ({ mailbox: box, session } = await connectedMailbox('assistant'));
  await control(box, 'POST', '/deliver', {
    subject: 'Invoice 4471 from Track Supplies',
    body: 'Hello,\n\nPlease find attached the invoice for your supplier account. The payment amount of $1,200 is due by Friday.\n\nRegards,\nAccounts\nTrack Supplies Pty Ltd\n\nThis email and any attachments are confidential and intended solely for the addressee.',
    from: { name: 'Track Supplies', address: 'accounts@supplies.test' },
  });
  inbox = (await get<{ items: Item[] }>('/api/emails/inbox?top=100')).body.items;
  // Categories of this user: invoices never get replies; media requests get drafts.
  expect(
    (
      await call('POST', '/api/admin/categories', {
        name: 'Invoices',
        rule: 'invoice payment amount due supplier account',
        reply_mode: 'no_reply',
      })
    ).status,
  ).toBe(201);
  expect(
    (
      await call('POST', '/api/admin/categories', {
        name: 'Media',
        rule: 'interview accreditation media photographer photos journalist',
        reply_mode: 'draft',
      })
    ).status,
  ).toBe(201);
});

describe('summaries and categories', () => {
  it('save-summary-direct summarises, categorises and caches a message; recipients come from Graph', async () => {
    const invoice = bySubject('Invoice');
    const res = await call<Summary & { trace_id: string; enriched: boolean }>('POST', '/api/save-summary-direct', {
      message_id: invoice.id,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ message_id: invoice.id, category: 'Invoices', enriched: true, direction: 'inbound' });
    expect(res.body.summary.length).toBeGreaterThan(0);
    expect(res.body.recipients.length).toBeGreaterThan(0);
    const doc = await get<Summary>(`/api/docdb/email_summaries/${encodeURIComponent(invoice.id)}`);
    expect(doc.body.category).toBe('Invoices');
    const cache = await get<{ items: { message_id: string; body_text: string }[] }>('/api/admin/docdb/emails?page_size=10');
    expect(cache.body.items.find((e) => e.message_id === invoice.id)?.body_text.length).toBeGreaterThan(0);
  });

  it('the list filters by category, direction and search; pinned come first; pin toggles', async () => {
    const media = bySubject('Interview request');
    await call('POST', '/api/save-summary-direct', { message_id: media.id });
    const invoices = await get<{ items: Summary[]; total: number }>('/api/docdb/email_summaries?category=Invoices');
    expect(invoices.body.items.every((s) => s.category === 'Invoices')).toBe(true);
    expect(invoices.body.total).toBeGreaterThanOrEqual(1);
    const searched = await get<{ items: Summary[] }>(`/api/docdb/email_summaries?search=${encodeURIComponent('interview')}`);
    expect(searched.body.items.map((s) => s.message_id)).toContain(media.id);
    expect(
      (await get<{ items: Summary[] }>('/api/docdb/email_summaries?direction=outbound')).body.items.every(
        (s) => s.direction === 'outbound',
      ),
    ).toBe(true);
    const pinned = await call<{ pinned: boolean }>('POST', `/api/docdb/email_summaries/${encodeURIComponent(media.id)}/pin`);
    expect(pinned.body.pinned).toBe(true);
    expect((await get<{ items: Summary[] }>('/api/docdb/email_summaries')).body.items[0]!.message_id).toBe(media.id);
    expect((await get<{ items: Summary[] }>('/api/docdb/email_summaries?pinned=true')).body.items.map((s) => s.message_id)).toEqual([
      media.id,
    ]);
    expect((await call<{ pinned: boolean }>('POST', `/api/docdb/email_summaries/${encodeURIComponent(media.id)}/pin`)).body.pinned).toBe(
      false,
    );
  });

  it('PUT /api/email/<id>/category sets it (a known category or unknown only)', async () => {
    const invoice = bySubject('Invoice');
    expect((await call('PUT', `/api/email/${encodeURIComponent(invoice.id)}/category`, { category: 'Media' })).status).toBe(200);
    expect((await get<Summary>(`/api/docdb/email_summaries/${encodeURIComponent(invoice.id)}`)).body.category).toBe('Media');
    expect((await call('PUT', `/api/email/${encodeURIComponent(invoice.id)}/category`, { category: 'Nope' })).status).toBe(400);
    const classified = await call<{ category: string; trace_id: string }>('POST', `/api/email/${encodeURIComponent(invoice.id)}/classify`);
    expect(classified.body.category).toBe('Invoices');
    expect((await get<Summary>(`/api/docdb/email_summaries/${encodeURIComponent(invoice.id)}`)).body.category).toBe('Invoices');
  });

  it('renaming a category moves its e-mails and re-runs categorisation; deleting resets them to unknown', async () => {
    const media = bySubject('Interview request');
    await call('POST', '/api/save-summary-direct', { message_id: media.id });
    await call('PUT', '/api/admin/llm-prompts/category/Media', { body: 'Media replies: offer a time for the interview.' });
    const renamed = await call<{ category: { name: string }; job_id: string }>('PUT', '/api/admin/categories/Media', { name: 'Press' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.category.name).toBe('Press');
    const job = await jobDone(renamed.body.job_id);
    expect(job.done).toBe(job.total);
    expect((await get<Summary>(`/api/docdb/email_summaries/${encodeURIComponent(media.id)}`)).body.category).toBe('Press');
    expect((await get<{ body: string }>('/api/admin/llm-prompts/category/Press')).body.body).toContain('offer a time');
    expect((await get<{ items: { name: string }[] }>('/api/categories')).body.items.map((c) => c.name)).toEqual(['Invoices', 'Press']);

    // A new rule moves e-mails to it.
    const created = await call<{ job_id: string }>('POST', '/api/admin/categories', {
      name: 'Interviews',
      rule: 'interview request interviews',
      reply_mode: 'draft',
    });
    const moved = await jobDone(created.body.job_id);
    expect(moved.changed).toBeGreaterThanOrEqual(1);
    expect((await get<Summary>(`/api/docdb/email_summaries/${encodeURIComponent(media.id)}`)).body.category).toBe('Interviews');

    const deleted = await call<{ reset: number }>('DELETE', '/api/admin/categories/Interviews');
    expect(deleted.status).toBe(200);
    expect(deleted.body.reset).toBeGreaterThanOrEqual(1);
    expect((await get<Summary>(`/api/docdb/email_summaries/${encodeURIComponent(media.id)}`)).body.category).toBe('unknown');
    expect((await call('DELETE', '/api/admin/categories/Interviews')).status).toBe(404);
    // back as it was for the other tests
    await call('PUT', '/api/admin/categories/Press', { name: 'Media' });
  });

  it('a rename onto a name with a left-over reply prompt replaces it; prompts of no category answer 404', async () => {
    expect((await call('POST', '/api/admin/categories', { name: 'Renamed A', rule: 'zzz' })).status).toBe(201);
    expect((await get('/api/admin/llm-prompts/category/Renamed A')).status).toBe(200);
    // no category "Renamed B": its prompt can't be read or written
    expect((await get('/api/admin/llm-prompts/category/Renamed B')).status).toBe(404);
    expect((await call('PUT', '/api/admin/llm-prompts/category/Renamed B', { body: 'x' })).status).toBe(404);
    // a row left under the new name (stored before the check existed)
    await drizzle(env.DB)
      .insert(aiPrompts)
      .values({ userId: session.userId, name: 'category:Renamed B', body: 'stale', updatedAt: Date.now() });
    await call('PUT', '/api/admin/llm-prompts/category/Renamed A', { body: 'A replies.' });
    const renamed = await call('PUT', '/api/admin/categories/Renamed A', { name: 'Renamed B' });
    expect(renamed.status).toBe(200);
    expect((await get<{ body: string }>('/api/admin/llm-prompts/category/Renamed B')).body.body).toBe('A replies.');
    expect((await call('DELETE', '/api/admin/categories/Renamed B')).status).toBe(200);
  });

  it('a new re-categorisation supersedes the user’s queued and running ones', async () => {
    const db = drizzle(env.DB, { schema });
    const first = await createRecategoriseJob(db, session.userId);
    const second = await createRecategoriseJob(db, session.userId);
    expect((await get<Job>(`/api/admin/jobs/${first}`)).body.status).toBe('superseded');
    expect((await get<Job>(`/api/admin/jobs/${second}`)).body.status).toBe('queued');
    // the one the route starts supersedes them both, and runs to the end
    const started = await call<{ job_id: string }>('POST', '/api/admin/categories/Invoices/prompt', {
      rule: 'invoice payment amount due supplier account',
    });
    expect((await get<Job>(`/api/admin/jobs/${second}`)).body.status).toBe('superseded');
    await jobDone(started.body.job_id);
  });

  it('a category name is stored without outer spaces', async () => {
    const created = await call<{ category: { name: string } }>('POST', '/api/admin/categories', { name: ' Spaced ', rule: 'zzz' });
    expect(created.status).toBe(201);
    expect(created.body.category.name).toBe('Spaced');
    expect((await call('POST', '/api/admin/categories', { name: 'Spaced  ' })).status).toBe(409);
    expect((await call('DELETE', '/api/admin/categories/Spaced')).status).toBe(200);
  });

  it('category create refuses a duplicate (409), "unknown" and bad names (400)', async () => {
    expect((await call('POST', '/api/admin/categories', { name: 'Invoices' })).status).toBe(409);
    expect((await call('POST', '/api/admin/categories', { name: 'unknown' })).status).toBe(400);
    for (const name of ['', 'a/b', 'x'.repeat(65), 'a\u0000b'])
      expect((await call('POST', '/api/admin/categories', { name })).status, name).toBe(400);
    expect((await call('POST', '/api/admin/categories/Invoices/prompt', { rule: 'a\u0000' })).status).toBe(400);
    expect((await get('/api/admin/categories/Nope/prompt')).status).toBe(404);
  });
});

describe('prompts', () => {
  it('general prompts: default, saved, reset to the default', async () => {
    const before = (await get<{ body: string; custom: boolean; default: string }>('/api/admin/llm-prompts/summarise')).body;
    expect(before.custom).toBe(false);
    expect(before.body).toBe(before.default);
    const saved = await call<{ body: string; custom: boolean }>('PUT', '/api/admin/llm-prompts/summarise', {
      body: 'Summarise in one line.',
    });
    expect(saved.body).toMatchObject({ body: 'Summarise in one line.', custom: true });
    expect(
      (await get<{ items: { name: string; custom: boolean }[] }>('/api/admin/llm-prompts')).body.items.find((p) => p.name === 'summarise')
        ?.custom,
    ).toBe(true);
    const reset = await call<{ body: string; custom: boolean; deleted: boolean }>('DELETE', '/api/admin/llm-prompts/summarise');
    expect(reset.body).toMatchObject({ body: before.default, custom: false, deleted: true });
    expect((await get('/api/admin/llm-prompts/nope')).status).toBe(404);
    expect((await call('PUT', '/api/admin/llm-prompts/summarise', { body: '' })).status).toBe(400);
    expect((await call('PUT', '/api/admin/llm-prompts/summarise', { body: 'x'.repeat(20_001) })).status).toBe(400);
  });

  it('a category prompt: GET stores the default, DELETE resets to it', async () => {
    const first = (await get<{ body: string; custom: boolean; default: string }>('/api/admin/llm-prompts/category/Invoices')).body;
    expect(first.body).toBe(first.default);
    expect(first.custom).toBe(true);
    await call('PUT', '/api/admin/llm-prompts/category/Invoices', { body: 'Never promise payment dates.' });
    expect((await get<{ body: string }>('/api/admin/llm-prompts/category/Invoices')).body.body).toBe('Never promise payment dates.');
    const reset = await call<{ body: string; default: string }>('DELETE', '/api/admin/llm-prompts/category/Invoices');
    expect(reset.body.body).toBe(reset.body.default);
  });
});

describe('drafts', () => {
  it('two generate calls at once for one e-mail make one provider draft (the other reuses it or answers 409)', async () => {
    const { value } = await control<{ value: { id?: string; immutableId: string }[] }>(box, 'POST', '/deliver', {
      subject: 'Concurrent interview accreditation request',
      body: 'Could our photographer get media accreditation and an interview slot?',
      from: { name: 'Pat Press', address: 'pat@press.test' },
    });
    const id =
      (await get<{ items: Item[] }>('/api/emails/inbox?top=100')).body.items.find(
        (m) => m.subject === 'Concurrent interview accreditation request',
      )?.id ?? value[0]!.immutableId;
    const answers = await Promise.all(
      [0, 1, 2].map(() => call<{ draft_id?: string; error?: string }>('POST', '/api/draft/generate', { email_id: id })),
    );
    for (const a of answers) expect([200, 409], JSON.stringify(a.body)).toContain(a.status);
    const ids = new Set(answers.filter((a) => a.status === 200).map((a) => a.body.draft_id));
    expect(ids.size).toBe(1);
    expect(answers.filter((a) => a.status === 409).every((a) => a.body.error === 'draft_in_progress')).toBe(true);
    const after = await call<{ draft_id: string; reused: boolean }>('POST', '/api/draft/generate', { email_id: id });
    expect(after.body).toMatchObject({ draft_id: [...ids][0], reused: true });
  });

  it('generate makes a provider draft (reused the second time), its trace shows model and Graph steps; update, find, send', async () => {
    const media = bySubject('Accreditation');
    const first = await call<{
      draft_id: string;
      body_html: string;
      reused: boolean;
      category: string;
      no_reply: boolean;
      trace_id: string;
    }>('POST', '/api/draft/generate', { email_id: media.id });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ email_id: media.id, reused: false, no_reply: false, category: 'Media' });
    expect(first.body.body_html).toContain('Kind regards');
    const trace = await get<{ steps: { kind: string; name: string; latency_ms: number; outcome: string; tokens_in: number }[] }>(
      `/api/traces/${first.body.trace_id}`,
    );
    const kinds = trace.body.steps.map((s) => `${s.kind} ${s.name}`);
    expect(kinds).toContain('model summarise');
    expect(kinds).toContain('model classify');
    expect(kinds.some((k) => k.startsWith('model category:Media'))).toBe(true);
    expect(kinds.some((k) => k.startsWith('graph POST /me/messages/') && k.endsWith('/createReply'))).toBe(true);
    expect(trace.body.steps.every((s) => s.outcome === 'ok' && s.latency_ms >= 0)).toBe(true);
    expect(trace.body.steps.find((s) => s.kind === 'model')!.tokens_in).toBeGreaterThan(0);

    const again = await call<{ draft_id: string; reused: boolean }>('POST', '/api/draft/generate', { email_id: media.id });
    expect(again.body).toMatchObject({ draft_id: first.body.draft_id, reused: true });

    expect((await call('POST', '/api/draft/update', { draft_id: first.body.draft_id, body_html: '<p>Edited reply</p>' })).body).toEqual({
      draft_id: first.body.draft_id,
      updated: true,
    });
    const atGraph = await get<{ body: { content: string }; isDraft: boolean }>(`/api/email/${encodeURIComponent(first.body.draft_id)}`);
    expect(atGraph.body.body.content).toContain('Edited reply');
    expect(atGraph.body.body.content).not.toContain('Kind regards</div>');
    expect(
      (await get<{ draft_id: string; body_html: string }>(`/api/draft/find?email_id=${encodeURIComponent(media.id)}`)).body,
    ).toMatchObject({ draft_id: first.body.draft_id, body_html: '<p>Edited reply</p>' });
    const sent = await call('POST', '/api/draft/send', { draft_id: first.body.draft_id });
    expect(sent).toEqual({ status: 202, body: { sent: true, draft_id: first.body.draft_id } });
    const gone = await get<{ error: string }>(`/api/draft/find?email_id=${encodeURIComponent(media.id)}`);
    expect(gone).toMatchObject({ status: 404, body: { error: 'no_draft' } });
    expect((await call('POST', '/api/draft/send', { draft_id: first.body.draft_id })).status).toBe(409);
  });

  it('no draft for a category in no-reply mode', async () => {
    const invoice = bySubject('Invoice');
    await call('POST', '/api/save-summary-direct', { message_id: invoice.id });
    const res = await call('POST', '/api/draft/generate', { email_id: invoice.id });
    expect(res.body).toMatchObject({ draft_id: null, no_reply: true, category: 'Invoices' });
  });

  it('a changed reply mode applies to the stored e-mails, except one already replied to; a summary’s new category sets needs_reply', async () => {
    const summary = async (id: string) => (await get<Summary>(`/api/docdb/email_summaries/${encodeURIComponent(id)}`)).body;
    const invoice = bySubject('Invoice').id;
    const replied = bySubject('Accreditation').id;
    expect(await summary(invoice)).toMatchObject({ category: 'Invoices', needs_reply: false });
    expect(await summary(replied)).toMatchObject({ category: 'Media', needs_reply: false });

    expect((await call('PUT', '/api/admin/categories/Invoices', { reply_mode: 'manual' })).status).toBe(200);
    expect((await summary(invoice)).needs_reply).toBe(true);
    await call('PUT', '/api/admin/categories/Media', { reply_mode: 'no_reply' });
    await call('PUT', '/api/admin/categories/Media', { reply_mode: 'draft' });
    expect((await summary(replied)).needs_reply).toBe(false);
    expect((await call<Summary>('POST', '/api/save-summary-direct', { message_id: replied })).body).toMatchObject({
      category: 'Media',
      needs_reply: false,
    });
    expect((await call('PUT', '/api/admin/categories/Invoices', { reply_mode: 'no_reply' })).status).toBe(200);
    expect((await summary(invoice)).needs_reply).toBe(false);

    const put = (body: unknown) => call<Summary>('PUT', `/api/docdb/email_summaries/${encodeURIComponent(invoice)}`, body);
    expect((await put({ category: 'Media' })).body).toMatchObject({ category: 'Media', needs_reply: true });
    expect((await put({ category: 'unknown' })).body).toMatchObject({ category: 'unknown', needs_reply: false });
    expect((await put({ category: 'Media', needs_reply: false })).body).toMatchObject({ category: 'Media', needs_reply: false });
    expect((await put({ category: 'Invoices' })).body).toMatchObject({ category: 'Invoices', needs_reply: false });
  });

  it('bad input: unknown draft 404, bad ids 400, Graph failing 502', async () => {
    expect((await call('POST', '/api/draft/update', { draft_id: 'AAMkNoSuchDraft', body_html: 'x' })).status).toBe(404);
    expect((await call('POST', '/api/draft/generate', { email_id: 'bad id' })).status).toBe(400);
    expect((await call('POST', '/api/draft/generate', {})).status).toBe(400);
    expect((await call('POST', '/api/draft/update', { draft_id: 'AAMk', body_html: 'a\u0000' })).status).toBe(400);
    const missing = await call('POST', '/api/draft/generate', { email_id: 'AAMkAGNoSuchMessage' });
    expect(missing.status).toBe(404);
    const fault = await control<{ id: string }>(box, 'POST', '/faults', { status: 500, pathPrefix: '/me/messages' });
    try {
      const failing = await call<{ error: string }>('POST', '/api/draft/generate', { email_id: bySubject('Stable visit').id });
      expect(failing.status).toBe(502);
      expect(failing.body.error).toBe('graph_unavailable');
    } finally {
      await control(box, 'DELETE', `/faults/${fault.id}`);
    }
  });
});

describe('threads', () => {
  it('update-summary folds the conversation in; thread-summary reads it; from-summary drafts from it', async () => {
    const reply = inbox.find((m) => m.subject.startsWith('RE: '))!;
    const message = (await get<{ conversationId: string }>(`/api/email/${encodeURIComponent(reply.id)}`)).body;
    const thread = encodeURIComponent(message.conversationId);
    expect((await call('POST', '/api/draft/from-summary', { thread_id: message.conversationId })).status).toBe(404);
    const updated = await call<{ summary: string; bullets: string[]; message_count: number }>(
      'POST',
      `/api/threads/${thread}/update-summary`,
    );
    expect(updated.status).toBe(200);
    expect(updated.body.message_count).toBeGreaterThanOrEqual(2);
    expect(updated.body.summary.length).toBeGreaterThan(0);
    const read = await get<{ summary: string; thread_id: string }>(`/api/thread-summary/${encodeURIComponent(reply.id)}`);
    expect(read.body).toMatchObject({ thread_id: message.conversationId, summary: updated.body.summary });
    const drafted = await call<{ body: string }>('POST', '/api/draft/from-summary', { thread_id: message.conversationId });
    expect(drafted.status).toBe(200);
    expect(drafted.body.body).toContain('Kind regards');
  });
});

describe('without a connected mailbox', () => {
  it('save-summary-direct works from the message given, and says it was not enriched', async () => {
    const alone = await directSession('alone@example.com');
    const html =
      '<p>Hello,</p><p>Please send the invoice payment for the catering account.</p><p>Thanks,<br>Bob</p><p>Sent from my iPhone</p>';
    const res = await call<Summary & { enriched: boolean }>(
      'POST',
      '/api/save-summary-direct',
      { message_id: 'AAMkLocal1', subject: 'Payment', from: 'Bob <bob@x.test>', body: html, body_type: 'html' },
      alone,
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ message_id: 'AAMkLocal1', enriched: false, category: 'unknown' });
    expect(res.body.summary).toContain('invoice payment');
    expect(res.body.summary).not.toContain('iPhone');
    const without = await call<{ error: string }>('POST', '/api/save-summary-direct', { message_id: 'AAMkLocal2' }, alone);
    expect(without).toMatchObject({ status: 401, body: { error: 'mailbox_not_connected' } });
    // Another user's documents are not this one's.
    expect((await get(`/api/docdb/email_summaries/${encodeURIComponent(bySubject('Invoice').id)}`, alone)).status).toBe(404);
  });
});

describe('dashboard, traces, admin users, Inbox Zero', () => {
  it('the dashboard counts this user’s e-mails, categories, drafts and model calls', async () => {
    const d = await get<{
      emails: number;
      by_category: { category: string; emails: number }[];
      drafts: { made: number };
      model_calls_7d: { calls: number };
      model: string;
    }>('/api/dashboard');
    expect(d.status).toBe(200);
    expect(d.body.model).toBe('openai');
    expect(d.body.emails).toBeGreaterThanOrEqual(2);
    expect(d.body.by_category.map((c) => c.category)).toContain('Invoices');
    expect(d.body.model_calls_7d.calls).toBeGreaterThan(0);
    const page = await send('/dashboard', { cookie: session.cookie });
    expect(await page.text()).toContain('Invoices');
  });

  it('a trace of another user is 404; a malformed id 400', async () => {
    const other = await directSession('other-trace@example.com');
    const mine = await call<{ trace_id: string }>('POST', '/api/llm/summarise', { text: 'Private text of mine.' });
    expect((await get(`/api/traces/${mine.body.trace_id}`, other)).status).toBe(404);
    expect((await get('/api/traces/bad%20id')).status).toBe(400);
    const page = await send(`/trace/${mine.body.trace_id}`, { cookie: session.cookie });
    expect(await page.text()).toContain('summarise');
    expect((await send(`/trace/${mine.body.trace_id}`, { cookie: other.cookie })).status).toBe(404);
    expect((await send('/trace/tr_nothing_here', { cookie: session.cookie })).status).toBe(404);
    expect((await get('/api/admin/docdb/emails?page_size=11')).status).toBe(400);
  });

  it('admin users: admins list and add; a listed account may use the assistant; others not', async () => {
    const outsider = await directSession(`new-${Date.now()}@elsewhere.test`);
    expect((await call('POST', '/api/llm/summarise', { text: 'hello there.' }, outsider)).status).toBe(403);
    expect((await call('POST', '/api/admin/users', { email: outsider.email }, outsider)).status).toBe(403);
    const added = await call<{ email: string }>('POST', '/api/admin/users', { email: outsider.email.toUpperCase(), name: 'New' });
    expect(added).toMatchObject({ status: 201, body: { email: outsider.email } });
    expect((await call('POST', '/api/admin/users', { email: outsider.email })).status).toBe(200);
    expect((await get<{ items: { email: string }[] }>('/api/admin/users')).body.items.map((u) => u.email)).toContain(outsider.email);
    expect((await call('POST', '/api/llm/summarise', { text: 'hello there.' }, outsider)).status).toBe(200);
    expect((await get('/api/admin/users', outsider)).status).toBe(403);
    expect((await call('POST', '/api/admin/users', { email: 'not an address' })).status).toBe(400);
  });

  it('new mail through the webhook is summarised, categorised and drafted without anyone opening it', async () => {
    const pump = pumpWebhooks(box);
    try {
      const { value } = await control<{ value: { immutableId: string }[] }>(box, 'POST', '/deliver', {
        subject: 'Interview request for the accreditation desk',
        body: 'Could our photographer get media accreditation and an interview slot?',
        from: { name: 'Pat Press', address: 'pat@press.test' },
      });
      const id = value[0]!.immutableId;
      await expect
        .poll(async () => (await get<Summary>(`/api/docdb/email_summaries/${encodeURIComponent(id)}`)).body.category, {
          timeout: 20_000,
          interval: 300,
        })
        .toBe('Media');
      await expect
        .poll(async () => (await get(`/api/draft/find?email_id=${encodeURIComponent(id)}`)).status, { timeout: 20_000, interval: 300 })
        .toBe(200);
      const zero = await get<{ needs_reply: Summary[] }>('/api/inbox-zero');
      expect(zero.body.needs_reply.map((s) => s.message_id)).toContain(id);
      // The same notification again (Graph retries deliveries): processed once only.
      const stub = mailbox(session);
      await expect.poll(async () => (await stub.queueState()).queued, { timeout: 20_000 }).toBe(0);
      const before = await stub.queueState();
      await stub.notified(
        [{ subscriptionId: 'again', changeType: 'created', resource: `Users/u/Messages/${id}`, messageId: id, receivedAt: Date.now() }],
        session.userId,
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      const after = await stub.queueState();
      expect(after).toMatchObject({ queued: 0, done: before.done, failed: before.failed });
    } finally {
      await pump.stop();
    }
  });

  it('bulk archive moves every Inbox message of a sender to Archive', async () => {
    const sender = 'bulk@sender.test';
    await control(box, 'POST', '/deliver', { count: 3, subject: 'Bulk', from: { name: 'Bulk', address: sender } });
    const res = await call<{ archived: number; failed: number }>('POST', '/api/bulk-archive', { sender });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ archived: 3, failed: 0 });
    expect((await call('POST', '/api/bulk-archive', { sender })).body).toMatchObject({ archived: 0 });
  });
});
