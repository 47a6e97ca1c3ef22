import { env } from 'cloudflare:workers';
import { drizzle } from 'drizzle-orm/d1';
import { afterEach, describe, expect, it } from 'vitest';
import * as schema from '#d1/mail/schema.ts';
import { cleanBody, htmlToText } from '../../workers/mail/src/ai/clean';
import { ModelError, createModel, offlineModel } from '../../workers/mail/src/ai/model';
import { classify, extract, summarise, type TaskContext } from '../../workers/mail/src/ai/task';
import { Tracer } from '../../workers/mail/src/ai/trace';
import { mailConfig } from '../../workers/mail/src/config';
import { STANDIN, directSession, send } from './helpers';

const faults: number[] = [];
async function llmFault(fault: { mode: string; match: string; count?: number; delayMs?: number; status?: number }) {
  const res = await fetch(`${STANDIN}/_standin/llm/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(fault),
  });
  const created = (await res.json()) as { id: number };
  faults.push(created.id);
}
afterEach(async () => {
  for (const id of faults.splice(0)) await fetch(`${STANDIN}/_standin/llm/faults/${id}`, { method: 'DELETE' });
});

const marker = () => `marker-${crypto.randomUUID()}`;
const post = async (path: string, json: unknown) => {
  const s = await directSession('model@example.com');
  const res = await send(path, { method: 'POST', cookie: s.cookie, csrf: s.csrf, json });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, session: s };
};
const traceSteps = async (session: { cookie: string }, id: string) =>
  (
    (await (await send(`/api/traces/${id}`, { cookie: session.cookie })).json()) as {
      steps: { kind: string; name: string; outcome: string }[];
    }
  ).steps;

function context(model = offlineModel): TaskContext {
  return { model, tracer: new Tracer(1, 'unit'), db: drizzle(env.DB, { schema }), userId: 424242, timeoutMs: 1500 };
}

describe('the offline backend', () => {
  it('is deterministic and answers every task in shape', async () => {
    const text =
      'From: Al <al@x.test>\nSubject: Barrier trial\n\nThe barrier trial is on Monday at 7am. Please confirm the horses.\nVenue: Caulfield';
    const a = await summarise(context(), text);
    const b = await summarise(context(), text);
    expect(a).toEqual(b);
    expect(a.summary).toContain('barrier trial');
    expect(
      await classify(context(), text, [
        { name: 'Trials', rule: 'barrier trial horses' },
        { name: 'Invoices', rule: 'invoice payment' },
      ]),
    ).toBe('Trials');
    expect(await classify(context(), 'Nothing relevant here at all.', [{ name: 'Invoices', rule: 'invoice payment' }])).toBe('unknown');
    expect(await extract(context(), text)).toMatchObject({ venue: 'Caulfield' });
  });

  it('the configuration picks the backend', () => {
    const base = mailConfig(env);
    expect(createModel({ ...base, MAIL_MODEL: 'offline' }, {}).name).toBe('offline');
    expect(createModel({ ...base, MAIL_MODEL: 'openai' }, {}).name).toBe('openai:standin-chat');
    expect(createModel({ ...base, MAIL_MODEL: 'workers-ai' }, {}).name).toBe('unconfigured');
  });

  it('Workers AI without the AI binding is a clear error, not a crash', async () => {
    const model = createModel({ ...mailConfig(env), MAIL_MODEL: 'workers-ai' }, {});
    await expect(summarise(context(model), 'Some text.')).rejects.toMatchObject({ kind: 'unconfigured' });
  });
});

describe('the OpenAI-compatible backend (the stand-in) through the routes', () => {
  it('answers with token counts in the trace', async () => {
    const { status, body, session } = await post('/api/llm/summarise', { text: 'The horse galloped well this morning. All good.' });
    expect(status).toBe(200);
    const steps = await traceSteps(session, body.trace_id as string);
    expect(steps).toEqual([expect.objectContaining({ kind: 'model', name: 'summarise', outcome: 'ok' })]);
  });

  it('a malformed answer is asked once more; the trace shows both calls', async () => {
    const m = marker();
    await llmFault({ mode: 'malformed', match: m, count: 1 });
    const { status, body, session } = await post('/api/llm/kv-extract', { text: `Venue: Randwick\n${m}` });
    expect(status).toBe(200);
    expect(body.values).toMatchObject({ venue: 'Randwick' });
    expect((await traceSteps(session, body.trace_id as string)).map((s) => s.outcome)).toEqual(['malformed', 'ok']);
  });

  it('twice malformed is 502 model_unusable naming the trace', async () => {
    const m = marker();
    await llmFault({ mode: 'malformed', match: m });
    const { status, body, session } = await post('/api/llm/kv-extract', { text: `Venue: Flemington ${m}` });
    expect(status).toBe(502);
    expect(body.error).toBe('model_unusable');
    expect((await traceSteps(session, body.trace_id as string)).map((s) => s.outcome)).toEqual(['malformed', 'malformed']);
  });

  it('a failing model is 502 model_unavailable; an empty reply is model_unusable', async () => {
    const m = marker();
    await llmFault({ mode: 'fail', match: m, status: 500 });
    const failed = await post('/api/llm/summarise', { text: `Text ${m}` });
    expect(failed.status).toBe(502);
    expect(failed.body.error).toBe('model_unavailable');
    const e = marker();
    await llmFault({ mode: 'empty', match: e });
    const empty = await post('/api/llm/reply-draft', { text: `Text ${e}` });
    expect(empty.status).toBe(502);
    expect(empty.body.error).toBe('model_unusable');
  });

  it('a model slower than MODEL_TIMEOUT_MS is 502 model_timeout within the bound', async () => {
    const m = marker();
    await llmFault({ mode: 'slow', match: m, delayMs: 4000 });
    const started = Date.now();
    const { status, body } = await post('/api/llm/summarise', { text: `Slow ${m}` });
    expect(status).toBe(502);
    expect(body.error).toBe('model_timeout');
    expect(Date.now() - started).toBeLessThan(3 * 1500 + 1500);
  });

  it('a model error is a ModelError', () => {
    expect(new ModelError('timeout', 'x')).toBeInstanceOf(Error);
  });
});

describe('signature, disclaimer and quotation removal', () => {
  it('an HTML message: tags, entities and scripts go', () => {
    const text = htmlToText(
      '<html><head><style>p{}</style></head><body><p>Hi&nbsp;team,</p><div>Race&nbsp;4 &amp; 5 <b>today</b>.</div><script>x()</script></body></html>',
    );
    expect(text).toBe('Hi team,\n\nRace 4 & 5 today.');
  });

  it('markup of any shape is cleaned in linear time (an unclosed tag run, unclosed styles and comments)', () => {
    expect(cleanBody('<p '.repeat(166_000), 'html').text.startsWith('<p <p')).toBe(true);
    expect(htmlToText('<style>'.repeat(700_000))).toBe('');
    expect(htmlToText(`${'<!--'.repeat(200_000)}>x`)).toBe('x');
    expect(htmlToText('a<b>b</b> <hr> c<br>d')).toBe('ab\n________________________________\n c\nd');
  }, 10_000);

  it('a quoted reply (Outlook and Gmail headers) is cut', () => {
    const gmail = 'Yes, Saturday works.\n\nOn Mon, 3 Nov 2026 at 10:00, Jane <jane@x.test> wrote:\n> Can we meet Saturday?\n> Jane';
    expect(cleanBody(gmail).text).toBe('Yes, Saturday works.');
    const outlook = 'Confirmed.\n\n-----Original Message-----\nFrom: Jane\nSent: Monday\nSubject: Meeting\n\nCan we meet?';
    const cleaned = cleanBody(outlook);
    expect(cleaned.text).toBe('Confirmed.');
    expect(cleaned.quoteRemoved).toBe(true);
  });

  it('a mobile signature and a sign-off block are cut', () => {
    expect(cleanBody('Running late, start without me.\n\nSent from my iPhone').text).toBe('Running late, start without me.');
    const signed = cleanBody('Please send the nominations by Friday.\n\nThanks,\nJohn Smith\nRacing Manager\n+61 400 000 000');
    expect(signed.text).toBe('Please send the nominations by Friday.');
    expect(signed.signature).toContain('John Smith');
  });

  it('a legal disclaimer is cut, in HTML too', () => {
    const html =
      '<p>The stewards report is attached.</p><p>--<br>Mary</p><p>CONFIDENTIALITY NOTICE: This email and any attachments are confidential and intended solely for the addressee. If you have received this email in error please notify the sender.</p>';
    const cleaned = cleanBody(html, 'html');
    expect(cleaned.text).toBe('The stewards report is attached.');
    expect(
      cleanBody(
        'Body text here.\n\nThis message and its attachments may contain privileged information intended only for the named recipient.',
      ).text,
    ).toBe('Body text here.');
  });
});
