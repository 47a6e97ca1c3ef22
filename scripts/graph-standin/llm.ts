import type { IncomingMessage, ServerResponse } from 'node:http';
import { offlineAnswer } from '../../workers/mail/src/ai/offline.ts';
import { sendJson } from './http.ts';

/**
 * An OpenAI-compatible chat-completions endpoint (`POST /v1/chat/completions`) answering like the
 * mail assistant's offline model, with control knobs (`/_standin/llm/faults`) to make it fail,
 * answer malformed output or answer slowly — for the requests whose messages contain `match`
 * (so concurrent tests do not disturb each other), `count` times or until deleted.
 */

export interface LlmFault {
  id: number;
  mode: 'fail' | 'malformed' | 'slow' | 'empty';
  match: string;
  count: number | null;
  delayMs: number;
  status: number;
}

export interface LlmState {
  faults: LlmFault[];
  nextId: number;
  log: { time: string; model: string; mode: string | null; promptTokens: number; completionTokens: number }[];
  /** The messages of the newest requests as received (what the model was asked), for the tests to read. */
  requests: { time: string; model: string; system: string; user: string }[];
}

/** Requests kept (the newest), and the characters kept of each message. */
const MAX_REQUESTS = 500;
const MAX_REQUEST_CHARS = 50_000;

export const newLlmState = (): LlmState => ({ faults: [], nextId: 1, log: [], requests: [] });

type ChatRequest = { model?: string; messages?: { role: string; content: unknown }[] };

const contentOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((p) => (typeof p === 'object' && p && 'text' in p ? String((p as { text: unknown }).text) : '')).join('')
      : '';

export async function handleChat(state: LlmState, req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> {
  if (!/^Bearer \S+/.test(req.headers.authorization ?? ''))
    return sendJson(res, 401, { error: { message: 'Missing API key', type: 'invalid_request_error', code: 'invalid_api_key' } });
  let request: ChatRequest;
  try {
    request = JSON.parse(body.toString('utf8')) as ChatRequest;
  } catch {
    return sendJson(res, 400, { error: { message: 'The body is not JSON', type: 'invalid_request_error' } });
  }
  if (!Array.isArray(request.messages) || !request.messages.length)
    return sendJson(res, 400, { error: { message: 'messages is required', type: 'invalid_request_error' } });
  const system = request.messages
    .filter((m) => m.role === 'system')
    .map((m) => contentOf(m.content))
    .join('\n');
  const user = request.messages
    .filter((m) => m.role === 'user')
    .map((m) => contentOf(m.content))
    .join('\n');
  const all = `${system}\n${user}`;
  state.requests.push({
    time: new Date().toISOString(),
    model: request.model ?? '',
    system: system.slice(0, MAX_REQUEST_CHARS),
    user: user.slice(0, MAX_REQUEST_CHARS),
  });
  if (state.requests.length > MAX_REQUESTS) state.requests.splice(0, state.requests.length - MAX_REQUESTS);
  const fault = state.faults.find((f) => all.includes(f.match));
  if (fault && fault.count !== null && --fault.count <= 0) state.faults.splice(state.faults.indexOf(fault), 1);
  if (fault?.delayMs) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
  let content = offlineAnswer(system, user);
  if (fault?.mode === 'fail') {
    state.log.push({ time: new Date().toISOString(), model: request.model ?? '', mode: 'fail', promptTokens: 0, completionTokens: 0 });
    return sendJson(res, fault.status, { error: { message: 'The model is overloaded', type: 'server_error' } });
  }
  if (fault?.mode === 'malformed') content = 'Sure! Here is what you asked for: category = maybe?';
  if (fault?.mode === 'empty') content = '';
  const promptTokens = Math.ceil(all.length / 4);
  const completionTokens = Math.ceil(content.length / 4);
  state.log.push({ time: new Date().toISOString(), model: request.model ?? '', mode: fault?.mode ?? null, promptTokens, completionTokens });
  if (state.log.length > 1000) state.log.splice(0, state.log.length - 1000);
  return sendJson(res, 200, {
    id: `chatcmpl-${state.log.length}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: request.model ?? 'standin',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  });
}

/** `/_standin/llm/faults` (GET, POST, DELETE), `/_standin/llm/log` and `/_standin/llm/requests` (GET, DELETE). */
export function handleLlmControl(state: LlmState, method: string, segments: string[], body: Buffer): { status: number; json?: unknown } {
  const [what, id] = segments;
  if (what === 'faults' && method === 'POST' && id === undefined) {
    let input: Partial<LlmFault>;
    try {
      input = JSON.parse(body.toString('utf8') || '{}') as Partial<LlmFault>;
    } catch {
      return { status: 400, json: { error: { code: 'BadRequest', message: 'The body is not JSON.' } } };
    }
    if (!['fail', 'malformed', 'slow', 'empty'].includes(String(input.mode)))
      return { status: 400, json: { error: { code: 'BadRequest', message: 'mode: fail, malformed, slow or empty' } } };
    if (typeof input.match !== 'string' || !input.match)
      return { status: 400, json: { error: { code: 'BadRequest', message: 'match: the text a request must contain' } } };
    const fault: LlmFault = {
      id: state.nextId++,
      mode: input.mode!,
      match: input.match,
      count: typeof input.count === 'number' ? input.count : null,
      delayMs: Math.min(Number(input.delayMs ?? (input.mode === 'slow' ? 5000 : 0)), 120_000),
      status: Number(input.status ?? 503),
    };
    state.faults.push(fault);
    return { status: 201, json: fault };
  }
  if (what === 'faults' && method === 'GET') return { status: 200, json: { value: state.faults } };
  if (what === 'faults' && method === 'DELETE') {
    state.faults = id === undefined ? [] : state.faults.filter((f) => String(f.id) !== id);
    return { status: 204 };
  }
  if (what === 'log' && method === 'GET') return { status: 200, json: { value: state.log } };
  if (what === 'log' && method === 'DELETE') {
    state.log = [];
    return { status: 204 };
  }
  if (what === 'requests' && method === 'GET') return { status: 200, json: { value: state.requests } };
  if (what === 'requests' && method === 'DELETE') {
    state.requests = [];
    return { status: 204 };
  }
  return {
    status: 404,
    json: { error: { code: 'NotFound', message: 'LLM control: /_standin/llm/faults, /_standin/llm/log or /_standin/llm/requests' } },
  };
}
