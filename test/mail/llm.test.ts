import { describe, expect, it } from 'vitest';
import { directSession, send } from './helpers';

const EMAIL = `From: Jane Trainer <jane@stables.test>
Subject: Entries for Saturday

Hi team. Please enter Silver Arrow in race 4 at Flemington on Saturday. The jockey will be J. Smith.
Let me know the barrier draw when it is out.
Trainer: Jane Doe
Race: 4
Venue: Flemington`;

async function post(path: string, json: unknown, session?: { cookie: string; csrf: string }) {
  const s = session ?? (await directSession('llm@example.com'));
  return send(path, { method: 'POST', cookie: s.cookie, csrf: s.csrf, json });
}

describe('/api/llm/* with the configured model', () => {
  it('summarise answers a summary, bullets and the trace id; the trace is stored', async () => {
    const session = await directSession('llm-sum@example.com');
    const res = await post('/api/llm/summarise', { text: EMAIL }, session);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { summary: string; bullets: string[]; trace_id: string };
    expect(body.summary).toContain('Silver Arrow');
    expect(body.bullets.length).toBeGreaterThan(0);
    expect(body.trace_id).toMatch(/^tr_/);
    const trace = await send(`/api/traces/${body.trace_id}`, { cookie: session.cookie });
    if (trace.status !== 404) {
      const steps = ((await trace.json()) as { steps: { kind: string; name: string }[] }).steps;
      expect(steps[0]).toMatchObject({ kind: 'model', name: 'summarise' });
    }
  });

  it('classify is unknown without categories', async () => {
    const res = await post('/api/llm/classify', { text: EMAIL });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ category: 'unknown' });
  });

  it('kv-extract finds the key-value lines, and only the keys asked for when given', async () => {
    const all = (await (await post('/api/llm/kv-extract', { text: EMAIL })).json()) as { values: Record<string, string> };
    expect(all.values).toMatchObject({ trainer: 'Jane Doe', race: '4', venue: 'Flemington' });
    const some = (await (await post('/api/llm/kv-extract', { text: EMAIL, keys: ['venue'] })).json()) as { values: Record<string, string> };
    expect(some.values).toEqual({ venue: 'Flemington' });
  });

  it('reply-draft answers a body addressed to the sender, signed as the saved reply prompt asks', async () => {
    const session = await directSession('llm-reply@example.com');
    const res = await post('/api/llm/reply-draft', { text: EMAIL }, session);
    expect(res.status).toBe(200);
    const body = ((await res.json()) as { body: string }).body;
    expect(body.split('\n')[0]).toContain('Jane');
    const saved = await send('/api/admin/llm-prompts/reply', {
      method: 'PUT',
      cookie: session.cookie,
      csrf: session.csrf,
      json: { body: 'Short replies; sign off with "The entries desk".' },
    });
    expect(saved.status).toBe(200);
    const signed = ((await (await post('/api/llm/reply-draft', { text: EMAIL }, session)).json()) as { body: string }).body;
    expect(signed.split('\n').at(-1)).toBe('The entries desk');
    expect(signed.split('\n').slice(0, -1)).toEqual(body.split('\n').slice(0, -1));
  });
});

describe('/api/llm/* bad input and gates', () => {
  it('400 for a missing, empty, NUL-holding or overlong text, and a bad category', async () => {
    const session = await directSession('llm-bad@example.com');
    for (const json of [{}, { text: '' }, { text: 'a\u0000b' }, { text: 'x'.repeat(100_001) }, { text: 5 }]) {
      const res = await post('/api/llm/summarise', json, session);
      expect(res.status, JSON.stringify(json).slice(0, 40)).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'invalid_request' });
    }
    expect((await post('/api/llm/reply-draft', { text: 'hi', category: '../x' }, session)).status).toBe(400);
    expect(
      (
        await send('/api/llm/summarise', {
          method: 'POST',
          cookie: session.cookie,
          csrf: session.csrf,
          headers: { 'content-type': 'application/json' },
          body: '{"text":',
        })
      ).status,
    ).toBe(400);
  });

  it('413 for a body over the cap, chunked too', async () => {
    const session = await directSession('llm-big@example.com');
    const big = JSON.stringify({ text: 'x'.repeat(300 * 1024) });
    expect(
      (
        await send('/api/llm/summarise', {
          method: 'POST',
          cookie: session.cookie,
          csrf: session.csrf,
          headers: { 'content-type': 'application/json' },
          body: big,
        })
      ).status,
    ).toBe(413);
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const chunked = await send('/api/llm/summarise', {
      method: 'POST',
      cookie: session.cookie,
      csrf: session.csrf,
      headers: { 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
  });

  it('401 without a session, 403 without the anti-forgery token, 403 for an account not allowed', async () => {
    expect((await send('/api/llm/summarise', { method: 'POST', json: { text: 'x' } })).status).toBe(401);
    const session = await directSession('llm-csrf@example.com');
    expect((await send('/api/llm/summarise', { method: 'POST', cookie: session.cookie, json: { text: 'x' } })).status).toBe(403);
    const outsider = await directSession('someone@elsewhere.test');
    const res = await post('/api/llm/summarise', { text: 'x' }, outsider);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: 'assistant_not_allowed' });
  });
});
