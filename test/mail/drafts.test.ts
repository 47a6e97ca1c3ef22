import { env } from 'cloudflare:workers';
import { drizzle } from 'drizzle-orm/d1';
import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import * as schema from '#d1/mail/schema.ts';
import { offlineModel } from '../../workers/mail/src/ai/model';
import { processMessage } from '../../workers/mail/src/ai/pipeline';
import { Tracer } from '../../workers/mail/src/ai/trace';
import { createMailApp } from '../../workers/mail/src/app';
import { GraphClient } from '../../workers/mail/src/graph/client';
import { BASE, type StandinMailbox, type TestSession, connectedMailbox, control, mailbox, send } from './helpers';

// Reply drafts: a Graph failure is never "no draft", the quoted original survives Graph's
// rewriting of the HTML, and the offline model is a template that writes no draft on its own.

let box: StandinMailbox;
let session: TestSession;

const get = async <T = unknown>(path: string) => {
  const res = await send(path, { cookie: session.cookie });
  return { status: res.status, body: (await res.json()) as T };
};
const call = async <T = unknown>(method: string, path: string, json?: unknown) => {
  const res = await send(path, { method, cookie: session.cookie, csrf: session.csrf, ...(json === undefined ? {} : { json }) });
  return { status: res.status, body: (await res.json()) as T };
};
/** A new message in the Inbox from a journalist (the Media category, in draft mode). */
async function deliver(subject: string, body: string): Promise<string> {
  const { value } = await control<{ value: { immutableId: string }[] }>(box, 'POST', '/deliver', {
    subject,
    body,
    from: { name: 'Sam Lee', address: 'sam@press.test' },
  });
  // The Worker asks Graph for immutable ids: the message's id as the Worker knows it.
  return value[0]!.immutableId;
}
const draftHtml = async (id: string) =>
  (await get<{ body: { content: string } }>(`/api/email/${encodeURIComponent(id)}`)).body.body.content;
const draftsTotal = async () => (await get<{ folder: { total: number } }>('/api/emails/drafts?top=1')).body.folder.total;

beforeAll(async () => {
  ({ mailbox: box, session } = await connectedMailbox('drafts'));
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

describe('/api/draft/find', () => {
  it('answers 502 when Graph fails or keeps throttling, and 404 no_draft only when there is none', async () => {
    const id = await deliver(
      'Accreditation for the photographer',
      'Hi,\n\nCould our photographer get media accreditation for Saturday?\n\nSam',
    );
    const made = await call<{ draft_id: string }>('POST', '/api/draft/generate', { email_id: id });
    expect(made.status).toBe(200);
    const found = await get<{ draft_id: string }>(`/api/draft/find?email_id=${encodeURIComponent(id)}`);
    expect(found).toMatchObject({ status: 200, body: { draft_id: made.body.draft_id } });

    for (const fault of [{ status: 500 }, { status: 503, retryAfter: 0 }]) {
      const { id: faultId } = await control<{ id: string }>(box, 'POST', '/faults', { ...fault, pathPrefix: '/me/messages' });
      try {
        const down = await get<{ error: string }>(`/api/draft/find?email_id=${encodeURIComponent(id)}`);
        expect(down.status, JSON.stringify(fault)).toBe(502);
        expect(down.body.error).toBe('graph_unavailable');
      } finally {
        await control(box, 'DELETE', `/faults/${faultId}`);
      }
    }

    const never = await deliver('Interview about the carnival', 'Could we interview your manager?');
    expect(await get(`/api/draft/find?email_id=${encodeURIComponent(never)}`)).toEqual({
      status: 404,
      body: expect.objectContaining({ error: 'no_draft' }),
    });
    // The draft deleted at Graph (moved to Deleted Items, then deleted from there): Graph's 404 is "no draft".
    for (let i = 0; i < 2; i++)
      expect((await mailbox(session).graph({ method: 'DELETE', path: `/me/messages/${encodeURIComponent(made.body.draft_id)}` })).ok).toBe(
        true,
      );
    expect(await get(`/api/draft/find?email_id=${encodeURIComponent(id)}`)).toEqual({
      status: 404,
      body: expect.objectContaining({ error: 'no_draft' }),
    });
  });
});

describe('/api/draft/update with Graph rewriting the HTML', () => {
  it('keeps the quoted original below the new reply, edit after edit', async () => {
    await control(box, 'POST', '/html', { rewrite: true });
    try {
      const original = "Hi,\n\nWe’d like photos of the winner's parade\u00a0— can the photographer join the journalist pool?\n\nSam";
      const id = await deliver('Photos of the parade', original);
      const made = await call<{ draft_id: string; body_html: string }>('POST', '/api/draft/generate', { email_id: id });
      expect(made.status).toBe(200);
      const created = await draftHtml(made.body.draft_id);
      // Graph's own spelling of the draft: its document, entities and attribute order.
      expect(created).toContain('&#39;');
      expect(created).toContain('<body dir="ltr">');
      expect(created).toContain('dir="ltr" id="divRplyFwdMsg"');

      expect(
        (
          await call('POST', '/api/draft/update', {
            draft_id: made.body.draft_id,
            body_html: "<p class='lead' data-x=\"1\">We'll   send the\n  photographer&nbsp;along.</p>",
          })
        ).status,
      ).toBe(200);
      const first = await draftHtml(made.body.draft_id);
      expect(first).toContain('send the');
      expect(first).toContain('divRplyFwdMsg');
      expect(first).toContain('parade');
      expect(first).toContain('journalist pool');
      expect(first.indexOf('send the')).toBeLessThan(first.indexOf('divRplyFwdMsg'));
      expect(first).not.toContain('Kind regards');

      expect(
        (await call('POST', '/api/draft/update', { draft_id: made.body.draft_id, body_html: '<p>Second thoughts: the pool is full.</p>' }))
          .status,
      ).toBe(200);
      const second = await draftHtml(made.body.draft_id);
      expect(second).toContain('Second thoughts');
      expect(second).not.toContain('send the');
      expect(second.split('divRplyFwdMsg')).toHaveLength(2);
      expect(second).toContain('journalist pool');
    } finally {
      await control(box, 'POST', '/html', { rewrite: false });
    }
  });
});

describe('the offline model is a template', () => {
  const offline = () => ({ ...env, MAIL_MODEL: 'offline' as const });
  const request = (path: string, init: RequestInit = {}) =>
    createMailApp().request(
      `${BASE}${path}`,
      { ...init, headers: { cookie: session.cookie, 'x-csrf-token': session.csrf, 'content-type': 'application/json', ...init.headers } },
      offline(),
      { waitUntil: () => {}, passThroughOnException: () => {}, props: {} },
    );

  it('its reply is called a template reply in the answer, the trace, the client and the dashboard, never AI', async () => {
    const id = await deliver('Journalist interview request', 'Hello,\n\nA journalist would like an interview on Friday.\n\nSam');
    const res = await request('/api/draft/generate', { method: 'POST', body: JSON.stringify({ email_id: id }) });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { generated_by: string; trace_id: string };
    expect(body.generated_by).toBe('template reply');
    const trace = (await (await request(`/api/traces/${body.trace_id}`)).json()) as {
      steps: { kind: string; name: string; detail: string }[];
    };
    const models = trace.steps.filter((s) => s.kind === 'model');
    expect(models.map((s) => s.detail)).toContain('template reply, tokens estimated');
    expect(models.find((s) => s.name === 'classify')!.detail).toBe('keyword category, tokens estimated');
    for (const step of models) expect(step.detail).not.toMatch(/\bAI\b/);

    const outlook = await (await request('/outlook')).text();
    expect(outlook).toContain('data-model-kind="template"');
    const dashboard = (await (await request('/api/dashboard')).json()) as {
      model: string;
      model_kind: string;
      model_title: string;
      model_calls_7d: { tokens_estimated: number };
    };
    expect(dashboard).toMatchObject({ model: 'offline', model_kind: 'template' });
    expect(dashboard.model_title).toContain('template replies');
    expect(dashboard.model_title).not.toMatch(/\bAI\b/);
    expect(dashboard.model_calls_7d.tokens_estimated).toBeGreaterThan(0);
    const page = await (await request('/dashboard')).text();
    expect(page).toContain('data-model-kind="template"');
    expect(page).toContain('estimated for');
  });

  it('new mail of a category in draft mode gets a suggestion, not a draft in the mailbox', async () => {
    const id = await deliver(
      'Media accreditation for our photographer',
      'Hi,\n\nPlease arrange media accreditation for our photographer.\n\nSam',
    );
    const db = drizzle(env.DB, { schema });
    const graph = new GraphClient(mailbox(session), env.GRAPH_BASE_URL);
    const ctx = { model: offlineModel, tracer: new Tracer(session.userId, 'new mail'), db, userId: session.userId, timeoutMs: 5_000 };
    const before = await draftsTotal();
    const processed = await processMessage(ctx, graph, await graph.message(id), { ownAddress: box.mail, draft: true });
    expect(processed.category).toBe('Media');
    expect(await draftsTotal()).toBe(before);
    expect(ctx.tracer.steps.some((s) => s.kind === 'graph' && s.name.endsWith('/createReply'))).toBe(false);
    const row = await db
      .select()
      .from(schema.aiDrafts)
      .where(and(eq(schema.aiDrafts.userId, session.userId), eq(schema.aiDrafts.emailId, id)))
      .get();
    expect(row?.draftId).toMatch(/^suggestion:/);
    expect(row?.bodyHtml).toContain('Kind regards');
    // A suggestion is no draft of the mailbox: not found, not updatable, not sendable.
    expect((await get(`/api/draft/find?email_id=${encodeURIComponent(id)}`)).status).toBe(404);
    expect((await call('POST', '/api/draft/update', { draft_id: row!.draftId, body_html: '<p>x</p>' })).status).toBe(404);
    expect((await call('POST', '/api/draft/send', { draft_id: row!.draftId })).status).toBe(404);
    const dashboard = (await get<{ drafts: { suggested: number } }>('/api/dashboard')).body;
    expect(dashboard.drafts.suggested).toBeGreaterThan(0);
    // Asked for, the draft is made in the mailbox.
    const made = await call<{ draft_id: string; reused: boolean }>('POST', '/api/draft/generate', { email_id: id });
    expect(made.status).toBe(200);
    expect(made.body.draft_id).not.toMatch(/^suggestion:/);
    expect(await draftsTotal()).toBe(before + 1);
  });
});
