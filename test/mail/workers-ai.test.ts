import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { offlineAnswer } from '../../workers/mail/src/ai/offline';
import { createMailApp } from '../../workers/mail/src/app';
import { BASE, type StandinMailbox, type TestSession, connectedMailbox, control } from './helpers';

// Workers AI through its binding, in workerd: a stand-in binding object with the binding's
// documented text-generation shape, run(model, { messages, max_tokens }, { signal }) →
// { response, usage?: { prompt_tokens, completion_tokens, total_tokens } }.

type Message = { role: string; content: string };
type Run = { model: string; inputs: { messages: Message[]; max_tokens: number; temperature?: number }; signal: unknown };

/** The binding stand-in: answers as the offline model would (valid JSON for the structured tasks), reporting usage unless told not to. */
function standinAi(options: { usage?: boolean; fail?: boolean } = {}) {
  const runs: Run[] = [];
  return {
    runs,
    async run(model: string, inputs: Run['inputs'], runOptions?: { signal?: AbortSignal }) {
      runs.push({ model, inputs, signal: runOptions?.signal });
      if (options.fail) throw new Error('AiError: 3040: Capacity temporarily exceeded');
      const system = inputs.messages.find((m) => m.role === 'system')?.content ?? '';
      const user = inputs.messages.find((m) => m.role === 'user')?.content ?? '';
      const response = offlineAnswer(system, user);
      return options.usage === false ? { response } : { response, usage: { prompt_tokens: 321, completion_tokens: 45, total_tokens: 366 } };
    },
  };
}

let box: StandinMailbox;
let session: TestSession;

const request = async (ai: unknown, method: string, path: string, json?: unknown) => {
  const res = await createMailApp().request(
    `${BASE}${path}`,
    { method, headers: { cookie: session.cookie, 'x-csrf-token': session.csrf, 'content-type': 'application/json' }, body: json === undefined ? undefined : JSON.stringify(json) },
    { ...env, MAIL_MODEL: 'workers-ai', AI: ai },
    { waitUntil: () => {}, passThroughOnException: () => {}, props: {} },
  );
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

beforeAll(async () => {
  ({ mailbox: box, session } = await connectedMailbox('workers-ai'));
});

describe('Workers AI through the AI binding', () => {
  it('makes a reply draft through run(): the documented request shape, the reported usage in the trace', async () => {
    const { status: created } = await request(standinAi(), 'POST', '/api/admin/categories', { name: 'Media', rule: 'interview accreditation media photographer journalist', reply_mode: 'draft' });
    expect(created).toBe(201);
    const { value } = await control<{ value: { immutableId: string }[] }>(box, 'POST', '/deliver', { subject: 'Interview request', body: 'Hello,\n\nA journalist would like an interview on Friday.\n\nSam', from: { name: 'Sam Lee', address: 'sam@press.test' } });
    const ai = standinAi();
    const res = await request(ai, 'POST', '/api/draft/generate', { email_id: value[0]!.immutableId });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ category: 'Media', no_reply: false, reused: false, generated_by: 'AI reply (workers-ai:@cf/meta/llama-3.1-8b-instruct)' });
    expect(res.body.draft_id).toEqual(expect.any(String));
    expect(res.body.body_html).toContain('Kind regards');

    // summarise, classify, the category's reply
    expect(ai.runs.length).toBeGreaterThanOrEqual(3);
    for (const run of ai.runs) {
      expect(run.model).toBe(env.WORKERS_AI_MODEL);
      expect(run.inputs.messages.map((m) => m.role)).toEqual(['system', 'user']);
      for (const m of run.inputs.messages) expect(typeof m.content).toBe('string');
      expect(run.inputs.max_tokens).toBe(600);
      expect(run.signal).toBeInstanceOf(AbortSignal);
    }
    expect(ai.runs.some((r) => r.inputs.messages[1]!.content.startsWith('### TASK reply'))).toBe(true);

    const trace = await request(ai, 'GET', `/api/traces/${String(res.body.trace_id)}`);
    const models = (trace.body.steps as { kind: string; tokens_in: number; tokens_out: number; detail: string }[]).filter((s) => s.kind === 'model');
    expect(models.length).toBe(ai.runs.length);
    for (const step of models) {
      expect(step).toMatchObject({ tokens_in: 321, tokens_out: 45 });
      expect(step.detail).not.toContain('estimated');
    }
    expect(models.map((s) => s.detail)).toContain('AI reply (workers-ai:@cf/meta/llama-3.1-8b-instruct)');
  });

  it('labels the tokens as estimates when the binding reports no usage', async () => {
    const res = await request(standinAi({ usage: false }), 'POST', '/api/llm/reply-draft', { text: 'Could we book the marquee for Saturday?' });
    expect(res.status).toBe(200);
    const trace = await request(standinAi(), 'GET', `/api/traces/${String(res.body.trace_id)}`);
    const step = (trace.body.steps as { kind: string; tokens_in: number; detail: string }[]).find((s) => s.kind === 'model')!;
    expect(step.detail).toContain('tokens estimated');
    expect(step.tokens_in).toBeGreaterThan(0);
  });

  it('a failing binding is 502 model_unavailable, a missing one 502 model_unconfigured', async () => {
    const failing = await request(standinAi({ fail: true }), 'POST', '/api/llm/summarise', { text: 'The marquee is booked for Saturday.' });
    expect(failing).toMatchObject({ status: 502, body: { error: 'model_unavailable' } });
    const missing = await request(undefined, 'POST', '/api/llm/summarise', { text: 'The marquee is booked for Saturday.' });
    expect(missing).toMatchObject({ status: 502, body: { error: 'model_unconfigured' } });
  });
});
