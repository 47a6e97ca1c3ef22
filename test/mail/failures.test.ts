import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type StandinMailbox, type TestSession, STANDIN, connectedMailbox, control, mailbox, pumpWebhooks, send } from './helpers';

// The assistant's routes with the model failing, answering malformed output or answering too
// slowly (the stand-in's chat-completions fault knobs, matched on a marker in the prompt), and
// with Graph failing (the stand-in mailbox's faults): a 502 naming the trace, nothing half-written.

let box: StandinMailbox;
let session: TestSession;

const llmFaults: number[] = [];
async function llmFault(fault: {
  mode: 'fail' | 'malformed' | 'slow' | 'empty';
  match: string;
  count?: number;
  delayMs?: number;
  status?: number;
}) {
  const res = await fetch(`${STANDIN}/_standin/llm/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(fault),
  });
  expect(res.status).toBe(201);
  llmFaults.push(((await res.json()) as { id: number }).id);
}
const graphFaults: string[] = [];
async function graphFault(fault: { status: number; pathPrefix?: string }) {
  graphFaults.push((await control<{ id: string }>(box, 'POST', '/faults', fault)).id);
}
afterEach(async () => {
  for (const id of llmFaults.splice(0)) await fetch(`${STANDIN}/_standin/llm/faults/${id}`, { method: 'DELETE' });
  for (const id of graphFaults.splice(0)) await control(box, 'DELETE', `/faults/${id}`);
});

const get = async <T = Record<string, unknown>>(path: string) => {
  const res = await send(path, { cookie: session.cookie });
  return { status: res.status, body: (await res.json()) as T };
};
const call = async <T = Record<string, unknown>>(method: string, path: string, json?: unknown) => {
  const res = await send(path, { method, cookie: session.cookie, csrf: session.csrf, ...(json === undefined ? {} : { json }) });
  return { status: res.status, body: (await res.json()) as T };
};
const marker = () => `marker${crypto.randomUUID().replace(/-/g, '')}`;

/** A new message in the mailbox whose text carries `m` (so the model's fault matches it only). */
async function deliver(m: string): Promise<{ id: string; conversationId: string }> {
  const { value } = await control<{ value: { immutableId: string }[] }>(box, 'POST', '/deliver', {
    subject: `Interview request ${m}`,
    body: `Could our photographer get media accreditation and an interview slot on Saturday? Reference ${m}.`,
    from: { name: 'Pat Press', address: 'pat@press.test' },
  });
  const id = value[0]!.immutableId;
  const message = await get<{ conversationId: string }>(`/api/email/${encodeURIComponent(id)}`);
  expect(message.status).toBe(200);
  return { id, conversationId: message.body.conversationId };
}

type Failure = { status: number; body: Record<string, unknown> };
async function expectModelError(res: Failure, error: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(502);
  expect(res.body.error).toBe(error);
  expect(res.body.trace_id).toMatch(/^tr_/);
  const trace = await get<{ outcome: string; steps: { kind: string; outcome: string }[] }>(`/api/traces/${res.body.trace_id}`);
  expect(trace.status).toBe(200);
  expect(trace.body.steps.some((s) => s.kind === 'model' && s.outcome !== 'ok')).toBe(true);
}
const nothingStored = async (id: string) => {
  expect((await get(`/api/docdb/email_summaries/${encodeURIComponent(id)}`)).status).toBe(404);
  expect((await get(`/api/draft/find?email_id=${encodeURIComponent(id)}`)).status).toBe(404);
};

const MODES = [
  { name: 'failing', fault: { mode: 'fail', status: 500 }, error: 'model_unavailable' },
  { name: 'malformed twice', fault: { mode: 'malformed' }, error: 'model_unusable' },
  { name: 'too slow', fault: { mode: 'slow', delayMs: 4000 }, error: 'model_timeout' },
] as const;

beforeAll(async () => {
  ({ mailbox: box, session } = await connectedMailbox('failures'));
  expect(
    (
      await call('POST', '/api/admin/categories', {
        name: 'Media',
        rule: 'interview accreditation media photographer journalist',
        reply_mode: 'draft',
      })
    ).status,
  ).toBe(201);
});

describe('the model failing', () => {
  for (const mode of MODES) {
    it(`${mode.name}: save-summary-direct is 502 ${mode.error}; no summary, no draft`, async () => {
      const m = marker();
      const { id } = await deliver(m);
      await llmFault({ ...mode.fault, match: m });
      await expectModelError(await call('POST', '/api/save-summary-direct', { message_id: id }), mode.error);
      await nothingStored(id);
    });

    it(`${mode.name}: classify is 502 ${mode.error}; no summary`, async () => {
      const m = marker();
      const { id } = await deliver(m);
      await llmFault({ ...mode.fault, match: m });
      await expectModelError(await call('POST', `/api/email/${encodeURIComponent(id)}/classify`), mode.error);
      await nothingStored(id);
    });

    it(`${mode.name}: draft/generate is 502 ${mode.error}; no summary, no provider draft`, async () => {
      const m = marker();
      const { id } = await deliver(m);
      await llmFault({ ...mode.fault, match: m });
      await expectModelError(await call('POST', '/api/draft/generate', { email_id: id }), mode.error);
      await nothingStored(id);
      const drafts = await get<{ items: { subject: string }[] }>('/api/emails/drafts?top=100');
      expect(drafts.status).toBe(200);
      expect(drafts.body.items.filter((d) => d.subject.includes(m))).toEqual([]);
    });

    it(`${mode.name}: update-summary and thread-summary are 502 ${mode.error}; no thread summary stored`, async () => {
      const m = marker();
      const { id, conversationId } = await deliver(m);
      await llmFault({ ...mode.fault, match: m });
      await expectModelError(await call('POST', `/api/threads/${encodeURIComponent(conversationId)}/update-summary`), mode.error);
      await expectModelError(await get(`/api/thread-summary/${encodeURIComponent(id)}`), mode.error);
      // Nothing stored: a reply from the summary still has no summary to work from.
      expect((await call('POST', '/api/draft/from-summary', { thread_id: conversationId })).status).toBe(404);
    });

    // A reply body is free text: its unusable answer is an empty one.
    const free = mode.fault.mode === 'malformed' ? ({ fault: { mode: 'empty' }, name: 'empty twice' } as const) : mode;
    it(`${free.name}: draft/from-summary is 502 ${mode.error}`, async () => {
      const { conversationId } = await deliver(marker());
      expect((await call('POST', `/api/threads/${encodeURIComponent(conversationId)}/update-summary`)).status).toBe(200);
      // The fault matches the category's reply guidance, which only this request's prompt holds.
      const m = marker();
      expect((await call('PUT', '/api/admin/llm-prompts/category/Media', { body: `Offer a time for the interview. ${m}` })).status).toBe(
        200,
      );
      await llmFault({ ...free.fault, match: m });
      await expectModelError(await call('POST', '/api/draft/from-summary', { thread_id: conversationId, category: 'Media' }), mode.error);
    });
  }
});

describe('Graph failing', () => {
  it('every route reading the mailbox is 502 graph_unavailable; nothing stored', async () => {
    const { id, conversationId } = await deliver(marker());
    await graphFault({ status: 500, pathPrefix: '/me/messages' });
    const answers: [string, Failure][] = [
      ['save-summary-direct', await call('POST', '/api/save-summary-direct', { message_id: id })],
      ['classify', await call('POST', `/api/email/${encodeURIComponent(id)}/classify`)],
      ['draft/generate', await call('POST', '/api/draft/generate', { email_id: id })],
      ['thread-summary', await get(`/api/thread-summary/${encodeURIComponent(id)}`)],
    ];
    await graphFault({ status: 500, pathPrefix: '/me' });
    answers.push(['update-summary', await call('POST', `/api/threads/${encodeURIComponent(conversationId)}/update-summary`)]);
    for (const [name, res] of answers) {
      expect(res.status, `${name} ${JSON.stringify(res.body)}`).toBe(502);
      expect(res.body.error, name).toBe('graph_unavailable');
    }
    for (const fid of graphFaults.splice(0)) await control(box, 'DELETE', `/faults/${fid}`);
    await nothingStored(id);
    expect((await call('POST', '/api/draft/from-summary', { thread_id: conversationId })).status).toBe(404);
  });
});

describe('background work with the model or Graph failing', () => {
  type Summary = { message_id: string; category: string };
  type Job = { job_id: string; status: string; total: number; done: number; error: string | null; finished_at: string | null };

  it('re-categorisation when the model fails for one e-mail: the job ends, failed with the error stated; that e-mail keeps its category', async () => {
    const ok = await deliver(marker());
    const m = marker();
    const bad = await deliver(m);
    for (const { id } of [ok, bad]) expect((await call('POST', '/api/save-summary-direct', { message_id: id })).status).toBe(200);
    const before = (await get<Summary>(`/api/docdb/email_summaries/${encodeURIComponent(bad.id)}`)).body.category;
    expect(before).toBe('Media');
    await llmFault({ mode: 'fail', match: m, status: 500 });
    const created = await call<{ job_id: string }>('POST', '/api/admin/categories', {
      name: `Interviews${m.slice(6, 14)}`,
      rule: 'interview request slot',
      reply_mode: 'draft',
    });
    expect(created.status).toBe(201);
    let job: Job | undefined;
    await expect
      .poll(
        async () => {
          job = (await get<Job>(`/api/admin/jobs/${created.body.job_id}`)).body;
          return job.status;
        },
        { timeout: 20_000, interval: 200 },
      )
      .toMatch(/^(done|failed)$/);
    // The job stops at the e-mail the model failed on, and says so.
    expect(job!.status).toBe('failed');
    expect(job!.error).toMatch(/model|overloaded|500/i);
    expect(job!.finished_at).not.toBeNull();
    expect(job!.done).toBeLessThanOrEqual(job!.total);
    // The failed e-mail is not moved to the new category by a half-run classification.
    expect((await get<Summary>(`/api/docdb/email_summaries/${encodeURIComponent(bad.id)}`)).body.category).toBe(before);
  });

  it('new mail through the webhook while Graph fails: retried, then processed once Graph is back', { timeout: 60_000 }, async () => {
    const { id } = await deliver(marker());
    await graphFault({ status: 500, pathPrefix: '/me/messages' });
    const pump = pumpWebhooks(box);
    try {
      // A failed attempt shows on the dashboard as a trace of the new mail ending in error.
      await expect
        .poll(
          async () =>
            (await get<{ recent_traces: { name: string; outcome: string }[] }>('/api/dashboard')).body.recent_traces.some(
              (t) => t.name === 'new mail' && t.outcome === 'error',
            ),
          { timeout: 20_000, interval: 300 },
        )
        .toBe(true);
      expect((await get(`/api/docdb/email_summaries/${encodeURIComponent(id)}`)).status).toBe(404);
      for (const fid of graphFaults.splice(0)) await control(box, 'DELETE', `/faults/${fid}`);
      await expect
        .poll(async () => (await get(`/api/docdb/email_summaries/${encodeURIComponent(id)}`)).status, { timeout: 30_000, interval: 300 })
        .toBe(200);
      const state = await mailbox(session).queueState();
      expect(state.failed).toBe(0);
    } finally {
      await pump.stop();
    }
  });
});
