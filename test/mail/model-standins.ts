import { env } from 'cloudflare:workers';
import { offlineAnswer } from '../../workers/mail/src/ai/offline';
import { createMailApp } from '../../workers/mail/src/app';
import { BASE, type TestSession } from './helpers';

// Stand-ins of the Workers AI binding (`env.AI`): the binding's documented text-generation shape,
// run(model, { messages, max_tokens }, { signal }) → { response, usage? }. Each keeps the inputs
// it was given, so a test reads exactly what the model was asked.

export type ChatMessage = { role: string; content: string };
export type Run = { model: string; inputs: { messages: ChatMessage[]; max_tokens: number; temperature?: number }; signal: unknown };

export const systemOf = (run: Run) => run.inputs.messages.find((m) => m.role === 'system')?.content ?? '';
export const userOf = (run: Run) => run.inputs.messages.find((m) => m.role === 'user')?.content ?? '';
export const taskOf = (run: Run) => [...systemOf(run).matchAll(/^### TASK (\w+)$/gm)].at(-1)?.[1];

/** A binding whose model answers with `answer(system, user)` (the offline model's answers by default). */
export function standinAi(options: { usage?: boolean; fail?: boolean; answer?: (system: string, user: string) => string } = {}) {
  const runs: Run[] = [];
  return {
    runs,
    async run(model: string, inputs: Run['inputs'], runOptions?: { signal?: AbortSignal }) {
      runs.push({ model, inputs, signal: runOptions?.signal });
      if (options.fail) throw new Error('AiError: 3040: Capacity temporarily exceeded');
      const system = inputs.messages.find((m) => m.role === 'system')?.content ?? '';
      const user = inputs.messages.find((m) => m.role === 'user')?.content ?? '';
      const response = (options.answer ?? offlineAnswer)(system, user);
      return options.usage === false ? { response } : { response, usage: { prompt_tokens: 321, completion_tokens: 45, total_tokens: 366 } };
    },
  };
}

/** Lines that read as an order to file the message somewhere: "file this under Urgent", "classify it as Urgent", … */
const ORDER =
  /\b(?:file|put|move|classify|categori[sz]e|sort)\s+(?:this|it|the (?:message|e-?mail))\s+(?:under|as|into|in)\s+(?:the\s+)?(?:category\s+)?["'“]?([A-Za-z][\w-]*)/i;

/**
 * A naive model, as gullible as a small language model can be: it takes a fence to open at any
 * line starting `<<<BEGIN` and to close at the next line starting `<<<END` (whatever their
 * token), obeys the LAST order-looking line outside a fence, and otherwise sorts the text by the
 * LAST `### CATEGORIES` list outside a fence (the category whose name and rule share the most
 * words with the fenced text). Other tasks are answered as the offline model answers them.
 */
export function naiveAnswer(system: string, user: string): string {
  if (taskOfSystem(system) !== 'classify') return offlineAnswer(system, user);
  const outside: string[] = [];
  const inside: string[] = [];
  let fenced = false;
  for (const line of `${system}\n${user}`.split('\n')) {
    if (!fenced && line.startsWith('<<<BEGIN')) fenced = true;
    else if (fenced && line.startsWith('<<<END')) fenced = false;
    else (fenced ? inside : outside).push(line);
  }
  let ordered: string | undefined;
  for (const line of outside) ordered = ORDER.exec(line)?.[1] ?? ordered;
  if (ordered) return JSON.stringify({ category: ordered });
  const lists = outside.join('\n').split(/^### CATEGORIES$/m);
  const list =
    lists.length > 1
      ? lists
          .at(-1)!
          .split('\n')
          .filter((l) => l.startsWith('- '))
      : [];
  // with no fence at all, the whole message is the text
  const text = (inside.length ? inside : outside).join('\n').toLowerCase();
  let best = { category: 'unknown', score: 0 };
  for (const line of list) {
    const [name, rule] = [line.slice(2, line.indexOf(':')).trim(), line.slice(line.indexOf(':') + 1)];
    const score = [...new Set(`${name} ${rule}`.toLowerCase().match(/[a-z]{4,}/g) ?? [])].filter((w) => text.includes(w)).length;
    if (score > best.score) best = { category: name, score };
  }
  return JSON.stringify(best.category === 'unknown' ? { category: 'unknown' } : { category: best.category });
}

const taskOfSystem = (system: string) => /^### TASK (\w+)$/m.exec(system)?.[1];

/** A request to the mail app with the given AI binding (MAIL_MODEL=workers-ai). */
export async function withAi(session: TestSession, ai: unknown, method: string, path: string, json?: unknown) {
  const res = await createMailApp().request(
    `${BASE}${path}`,
    {
      method,
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrf, 'content-type': 'application/json' },
      body: json === undefined ? undefined : JSON.stringify(json),
    },
    { ...env, MAIL_MODEL: 'workers-ai', AI: ai },
    { waitUntil: () => {}, passThroughOnException: () => {}, props: {} },
  );
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
