import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseTask } from '../../workers/mail/src/ai/fence';
import { type StandinMailbox, type TestSession, connectedMailbox, control } from './helpers';
import { standinAi, systemOf, taskOf, userOf, withAi } from './model-standins';

// Workers AI through its binding, in workerd: a stand-in binding object with the binding's
// documented text-generation shape (model-standins.ts), run(model, { messages, max_tokens },
// { signal }) → { response, usage?: { prompt_tokens, completion_tokens, total_tokens } }.

let box: StandinMailbox;
let session: TestSession;

const request = (ai: unknown, method: string, path: string, json?: unknown) => withAi(session, ai, method, path, json);

beforeAll(async () => {
  ({ mailbox: box, session } = await connectedMailbox('workers-ai'));
});

describe('Workers AI through the AI binding', () => {
  it('makes a reply draft through run(): the documented request shape, the reported usage in the trace', async () => {
    const { status: created } = await request(standinAi(), 'POST', '/api/admin/categories', {
      name: 'Media',
      rule: 'interview accreditation media photographer journalist',
      reply_mode: 'draft',
    });
    expect(created).toBe(201);
    const { value } = await control<{ value: { immutableId: string }[] }>(box, 'POST', '/deliver', {
      subject: 'Interview request',
      body: 'Hello,\n\nA journalist would like an interview on Friday.\n\nSam',
      from: { name: 'Sam Lee', address: 'sam@press.test' },
    });
    const ai = standinAi();
    const res = await request(ai, 'POST', '/api/draft/generate', { email_id: value[0]!.immutableId });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      category: 'Media',
      no_reply: false,
      reused: false,
      generated_by: 'AI reply (workers-ai:@cf/meta/llama-3.1-8b-instruct)',
    });
    expect(res.body.draft_id).toEqual(expect.any(String));
    expect(String(res.body.body_html).length).toBeGreaterThan(0);

    // summarise, classify, the category's reply
    expect(ai.runs.length).toBeGreaterThanOrEqual(3);
    for (const run of ai.runs) {
      expect(run.model).toBe(env.WORKERS_AI_MODEL);
      expect(run.inputs.messages.map((m) => m.role)).toEqual(['system', 'user']);
      for (const m of run.inputs.messages) expect(typeof m.content).toBe('string');
      expect(run.inputs.max_tokens).toBe(600);
      expect(run.signal).toBeInstanceOf(AbortSignal);
    }
    // the task and the person's prompts in the system message, the message fenced in the user message
    expect(ai.runs.map(taskOf).sort()).toEqual(['classify', 'reply', 'summarise']);
    for (const run of ai.runs)
      expect(parseTask(systemOf(run), userOf(run)).data?.text).toContain('A journalist would like an interview on Friday.');

    const trace = await request(ai, 'GET', `/api/traces/${String(res.body.trace_id)}`);
    const models = (trace.body.steps as { kind: string; tokens_in: number; tokens_out: number; detail: string }[]).filter(
      (s) => s.kind === 'model',
    );
    expect(models.length).toBe(ai.runs.length);
    for (const step of models) {
      expect(step).toMatchObject({ tokens_in: 321, tokens_out: 45 });
      expect(step.detail).not.toContain('estimated');
    }
    expect(models.map((s) => s.detail)).toContain('AI reply (workers-ai:@cf/meta/llama-3.1-8b-instruct)');
  });

  it('labels the tokens as estimates when the binding reports no usage', async () => {
    const res = await request(standinAi({ usage: false }), 'POST', '/api/llm/reply-draft', {
      text: 'Could we book the marquee for Saturday?',
    });
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
