import { z } from 'zod';
import type { MailDb } from '../context.ts';
import { type Model, ModelError, outputName } from './model.ts';
import { type PromptName, promptFor } from './prompts.ts';
import { type ModelMessages, taskMessages } from './fence.ts';
import type { Tracer } from './trace.ts';
import type { TaskKind } from './offline.ts';

/** What the model is given beside the prompt: the input text is capped. */
export const MAX_INPUT_CHARS = 24_000;

export interface TaskContext {
  model: Model;
  tracer: Tracer;
  db: MailDb;
  userId: number;
  timeoutMs: number;
}

/**
 * The messages of a task (see fence.ts): the person's prompt and the task's instructions
 * (GUIDANCE, CATEGORIES, KEYS) as the system message, the mail fenced as data in the user message.
 */
const messagesOf = (kind: TaskKind, system: string, sections: Record<string, string>): ModelMessages =>
  taskMessages(kind, system, sections, MAX_INPUT_CHARS);

/** One model call, bounded in time, recorded as a step. */
async function call(
  ctx: TaskContext,
  kind: TaskKind,
  promptName: string,
  { system, user }: ModelMessages,
  attempt: number,
): Promise<string> {
  const started = Date.now();
  const timeout = AbortSignal.timeout(ctx.timeoutMs);
  try {
    const answer = await Promise.race([
      ctx.model.generate({ system, user }, timeout),
      new Promise<never>((_, reject) =>
        timeout.addEventListener('abort', () => reject(new ModelError('timeout', `The model did not answer within ${ctx.timeoutMs} ms.`)), {
          once: true,
        }),
      ),
    ]);
    ctx.tracer.record({
      kind: 'model',
      name: promptName,
      latencyMs: Date.now() - started,
      tokensIn: answer.tokensIn,
      tokensOut: answer.tokensOut,
      outcome: 'ok',
      detail: `${outputName(ctx.model, kind)}${answer.tokensEstimated ? ', tokens estimated' : ''}${attempt ? ' (retry)' : ''}`,
    });
    return answer.text;
  } catch (err) {
    const error = err instanceof ModelError ? err : new ModelError('unavailable', err instanceof Error ? err.message : String(err));
    ctx.tracer.record({
      kind: 'model',
      name: promptName,
      latencyMs: Date.now() - started,
      tokensIn: 0,
      tokensOut: 0,
      outcome: error.kind,
      detail: `${ctx.model.name}: ${error.message}`,
    });
    throw error;
  }
}

/** The JSON object in a model's answer (models like to wrap it in prose or a code fence). */
function jsonIn(text: string): unknown {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  try {
    return JSON.parse(text.slice(start, end + 1));
  } catch {
    return undefined;
  }
}

/**
 * A structured answer: validated with zod, asked once more when unusable, then a ModelError
 * ('malformed'). A failing or silent model is asked once more too.
 */
export async function structured<T>(
  ctx: TaskContext,
  kind: TaskKind,
  promptName: string,
  system: string,
  sections: Record<string, string>,
  schema: z.ZodType<T>,
): Promise<T> {
  const messages = messagesOf(kind, system, sections);
  let last: ModelError | undefined;
  for (let attempt = 0; attempt < 2; attempt++) {
    let text: string;
    try {
      text = await call(ctx, kind, promptName, messages, attempt);
    } catch (err) {
      last = err as ModelError;
      if (last.kind === 'unconfigured') break;
      continue;
    }
    const parsed = schema.safeParse(jsonIn(text));
    if (parsed.success) return parsed.data;
    const step = ctx.tracer.steps.at(-1);
    if (step) step.outcome = 'malformed';
    last = new ModelError(
      'malformed',
      `The model's answer did not have the expected shape: ${parsed.error.issues[0]?.message ?? 'not JSON'}`,
    );
  }
  throw last ?? new ModelError('unavailable', 'The model did not answer.');
}

/** A free-text answer (a reply body): retried once on failure, refused when empty. */
export async function freeText(
  ctx: TaskContext,
  kind: TaskKind,
  promptName: string,
  system: string,
  sections: Record<string, string>,
): Promise<string> {
  const messages = messagesOf(kind, system, sections);
  let last: ModelError | undefined;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const text = (await call(ctx, kind, promptName, messages, attempt)).trim();
      if (text) return text.slice(0, 20_000);
      const step = ctx.tracer.steps.at(-1);
      if (step) step.outcome = 'malformed';
      last = new ModelError('malformed', 'The model answered nothing.');
    } catch (err) {
      last = err as ModelError;
      if (last.kind === 'unconfigured') break;
    }
  }
  throw last!;
}

/** The body of the user's prompt of that name (their own text, or the default). */
export async function prompt(ctx: TaskContext, name: PromptName | `category:${string}`): Promise<string> {
  return (await promptFor(ctx.db, ctx.userId, name))!.body;
}

// ---- the tasks -------------------------------------------------------------------------------

const SummaryAnswer = z.object({ summary: z.string().min(1).max(4000), bullets: z.array(z.string().max(1000)).max(20).default([]) });
export type Summary = z.infer<typeof SummaryAnswer>;

export async function summarise(ctx: TaskContext, text: string): Promise<Summary> {
  return structured(ctx, 'summarise', 'summarise', await prompt(ctx, 'summarise'), { TEXT: text }, SummaryAnswer);
}

export async function summariseThread(ctx: TaskContext, previous: string, text: string): Promise<Summary> {
  return structured(ctx, 'thread', 'thread', await prompt(ctx, 'thread'), { PREVIOUS: previous || '(none)', TEXT: text }, SummaryAnswer);
}

export interface CategoryRule {
  name: string;
  rule: string;
}

/** The `classify` prompt, read once for several classifications (see `classify`'s `system`). */
export const classifyPrompt = (ctx: TaskContext): Promise<string> => prompt(ctx, 'classify');

/**
 * One of the user's categories, or `unknown` (an answer naming another is unusable); `system` is
 * the `classify` prompt when the caller read it already.
 */
export async function classify(ctx: TaskContext, text: string, categories: CategoryRule[], system?: string): Promise<string> {
  return (await classifyExplained(ctx, text, categories, system)).category;
}

/** `classify`, with the model's reason for its choice when it gave one (rules' test mode shows it). */
export async function classifyExplained(
  ctx: TaskContext,
  text: string,
  categories: CategoryRule[],
  system?: string,
): Promise<{ category: string; reason: string | undefined }> {
  if (!categories.length) return { category: 'unknown', reason: 'there are no categories' };
  const names = new Set(categories.map((c) => c.name));
  const schema = z.object({
    category: z.string().refine((c) => c === 'unknown' || names.has(c), 'not one of the categories'),
    // a reason is welcome, never required: a person's own classify prompt may not ask for one
    reason: z.string().max(1000).optional().catch(undefined),
  });
  const list = categories.map((c) => `- ${c.name}: ${c.rule.replace(/\s+/g, ' ')}`).join('\n');
  const answer = await structured(
    ctx,
    'classify',
    'classify',
    system ?? (await classifyPrompt(ctx)),
    { CATEGORIES: list, TEXT: text },
    schema,
  );
  return { category: answer.category, reason: answer.reason?.trim() || undefined };
}

export async function extract(ctx: TaskContext, text: string, keys: string[] = []): Promise<Record<string, string>> {
  const schema = z.object({ values: z.record(z.string().max(100), z.union([z.string(), z.number(), z.boolean()]).transform(String)) });
  const answer = await structured(ctx, 'extract', 'extract', await prompt(ctx, 'extract'), { KEYS: keys.join(', '), TEXT: text }, schema);
  return Object.fromEntries(
    Object.entries(answer.values)
      .slice(0, 100)
      .map(([k, v]) => [k, v.slice(0, 2000)]),
  );
}

/** A reply body: the general reply prompt, with the category's own reply prompt as guidance. */
export async function replyDraft(ctx: TaskContext, text: string, category?: string): Promise<string> {
  const system = await prompt(ctx, 'reply');
  const guidance = category && category !== 'unknown' ? await prompt(ctx, `category:${category}`) : '';
  return freeText(ctx, 'reply', category && category !== 'unknown' ? `category:${category}` : 'reply', system, {
    GUIDANCE: guidance,
    TEXT: text,
  });
}
