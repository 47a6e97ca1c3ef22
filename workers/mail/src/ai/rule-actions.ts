import type { Message } from '@microsoft/microsoft-graph-types';
import { z } from 'zod';
import { HttpError } from '#shared/http-error.ts';
import { hasNul, NUL_MESSAGE } from '#shared/text.ts';
import { type GraphClient, type GraphTransport, graphHttpError } from '../graph/client.ts';
import { claimAction, finishAction } from '../data/rules.ts';
import { resolveFolder } from '../folders.ts';
import { ModelError } from './model.ts';
import { ensureDraft, suggestReply } from './pipeline.ts';
import type { TaskContext } from './task.ts';

/**
 * The actions a category's rule runs on a new message classified into it, in order. None of
 * them sends mail: a forward is a draft (createForward) and a reply is a draft (or, with the
 * offline template model, a suggestion kept here).
 */

/** Most actions one category runs. */
export const MAX_ACTIONS = 10;
/** Outlook's category colours (`categoryColor`): `preset0` … `preset24`. */
const CATEGORY_COLORS = Array.from({ length: 25 }, (_, i) => `preset${i}`) as [string, ...string[]];

const text = (max: number) =>
  z
    .string()
    .trim()
    .min(1, 'is required')
    .max(max, `must be at most ${max} characters`)
    .refine((v) => !hasNul(v), NUL_MESSAGE);

export const RuleActionSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('move'), folder: text(255) }).strict(),
  z.object({ type: z.literal('archive') }).strict(),
  z.object({ type: z.literal('mark_read') }).strict(),
  z.object({ type: z.literal('flag') }).strict(),
  z
    .object({
      type: z.literal('categorize'),
      categories: z
        .array(text(255).refine((v) => !v.includes(','), 'must not contain a comma'))
        .min(1)
        .max(10),
      color: z.enum(CATEGORY_COLORS).optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal('forward_draft'),
      to: z.array(z.email('must be an e-mail address').max(320)).min(1).max(10),
      comment: z
        .string()
        .max(2000, 'must be at most 2000 characters')
        .refine((v) => !hasNul(v), NUL_MESSAGE)
        .optional(),
    })
    .strict(),
  z.object({ type: z.literal('draft_reply') }).strict(),
]);
export type RuleAction = z.infer<typeof RuleActionSchema>;
export type RuleActionType = RuleAction['type'];
export const RuleActionsSchema = z.array(RuleActionSchema).max(MAX_ACTIONS, `at most ${MAX_ACTIONS} actions`);

export const ACTION_TYPES: { value: RuleActionType; label: string; value_hint?: string }[] = [
  { value: 'move', label: 'Move to a folder', value_hint: 'the folder' },
  { value: 'archive', label: 'Archive' },
  { value: 'mark_read', label: 'Mark read' },
  { value: 'flag', label: 'Flag for follow-up' },
  { value: 'categorize', label: 'Set Outlook categories', value_hint: 'names, comma-separated' },
  { value: 'forward_draft', label: 'Forward as a draft (never sent)', value_hint: 'addresses, comma-separated' },
  { value: 'draft_reply', label: 'Draft a reply' },
];

/** The stored list of a category (a row written before a change of these rules keeps its valid actions only). */
export function parseActions(json: string): RuleAction[] {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return [];
  }
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((a) => {
    const parsed = RuleActionSchema.safeParse(a);
    return parsed.success ? [parsed.data] : [];
  });
}

/** What an action does, in words. */
export function describeAction(action: RuleAction): string {
  switch (action.type) {
    case 'move':
      return `move to “${action.folder}”`;
    case 'archive':
      return 'archive';
    case 'mark_read':
      return 'mark read';
    case 'flag':
      return 'flag for follow-up';
    case 'categorize':
      return `set the Outlook categories ${action.categories.map((c) => `“${c}”`).join(', ')}`;
    case 'forward_draft':
      return `prepare a forward to ${action.to.join(', ')} as a draft (not sent)`;
    case 'draft_reply':
      return 'draft a reply (not sent)';
  }
}

/** A colour for a new Outlook category: chosen from its name, so the same name always gets the same one. */
function colorFor(name: string): string {
  let h = 0;
  for (const ch of name.toLowerCase()) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return CATEGORY_COLORS[h % CATEGORY_COLORS.length]!;
}

/** Some actions were left for later (Graph throttling or unavailable, the model failing): run them again after this. */
export class ActionsDeferred extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(message);
    this.name = 'ActionsDeferred';
  }
}

/** How long to wait before trying a message again: at least `backoffMs`, and at least the Retry-After Graph gave. */
export function retryDelayMs(err: unknown, backoffMs: number): number {
  const seconds =
    err instanceof ActionsDeferred
      ? err.retryAfterSeconds
      : err instanceof HttpError && typeof err.details?.retryAfterSeconds === 'number'
        ? err.details.retryAfterSeconds
        : undefined;
  return Math.max(backoffMs, (seconds ?? 0) * 1000);
}

/** A failure worth trying again later: Graph throttling, down or slow; the model failing. Not a refusal (4xx). */
const retryable = (err: unknown) =>
  (err instanceof HttpError && err.status >= 500) || (err instanceof ModelError && err.kind !== 'unconfigured');

export interface ActionRun {
  ctx: TaskContext;
  graph: GraphClient;
  /** The same Graph transport the client uses (for the calls the client has no method for). */
  transport: GraphTransport;
  message: Message;
  category: string;
  /** The message's cleaned text (for a reply draft). */
  clean: string;
  /** The mailbox owner's address: their own messages get no reply draft. */
  ownAddress?: string;
}

export interface ActionsOutcome {
  ran: number;
  skipped: number;
  failed: number;
}

async function graphCall<T>(transport: GraphTransport, request: Parameters<GraphTransport['graph']>[0]): Promise<T> {
  const result = await transport.graph(request);
  if (!result.ok) throw graphHttpError(result);
  return result.json as T;
}

/** Outlook categories: missing ones added to the master list (with a colour), then to the message's own `categories`. */
async function categorize(run: ActionRun, action: Extract<RuleAction, { type: 'categorize' }>): Promise<string> {
  const t = run.transport;
  const id = encodeURIComponent(run.message.id!);
  const notes: string[] = [];
  try {
    const master = await graphCall<{ value?: { displayName?: string }[] }>(t, { method: 'GET', path: '/me/outlook/masterCategories' });
    const known = new Set((master.value ?? []).map((c) => (c.displayName ?? '').toLowerCase()));
    for (const name of action.categories.filter((n) => !known.has(n.toLowerCase()))) {
      try {
        await graphCall(t, {
          method: 'POST',
          path: '/me/outlook/masterCategories',
          body: { displayName: name, color: action.color ?? colorFor(name) },
        });
        notes.push(`“${name}” added to the master list`);
      } catch (err) {
        // made meanwhile (another message of the same run): nothing more to do
        if (!(err instanceof HttpError && err.status === 400 && err.details?.graph_status === 409)) throw err;
      }
    }
  } catch (err) {
    // Without MailboxSettings.ReadWrite the message still gets its categories (Outlook shows them uncoloured).
    if (!(err instanceof HttpError && err.status === 400 && err.details?.graph_status === 403)) throw err;
    notes.push('master list not changed (no MailboxSettings permission)');
  }
  const current = await graphCall<{ categories?: string[] }>(t, { method: 'GET', path: `/me/messages/${id}?$select=categories` });
  const have = current.categories ?? [];
  const merged = [...have, ...action.categories.filter((n) => !have.some((h) => h.toLowerCase() === n.toLowerCase()))];
  if (merged.length !== have.length) await run.graph.update(run.message.id!, { categories: merged });
  else notes.push('the message had them already');
  return notes.join('; ');
}

/** Runs one action; answers what to record beside `ok`. */
async function perform(run: ActionRun, action: RuleAction): Promise<string> {
  const id = run.message.id!;
  switch (action.type) {
    case 'move': {
      const folder = await resolveFolder(run.graph, action.folder);
      await run.graph.move(id, folder);
      return '';
    }
    case 'archive':
      await run.graph.move(id, 'archive');
      return '';
    case 'mark_read':
      await run.graph.update(id, { isRead: true });
      return '';
    case 'flag':
      await run.graph.update(id, { flag: { flagStatus: 'flagged' } });
      return '';
    case 'categorize':
      return categorize(run, action);
    case 'forward_draft': {
      const draft = await graphCall<Message>(run.transport, {
        method: 'POST',
        path: `/me/messages/${encodeURIComponent(id)}/createForward`,
        body: {
          toRecipients: action.to.map((address) => ({ emailAddress: { address } })),
          ...(action.comment ? { comment: action.comment } : {}),
        },
      });
      return `draft ${draft.id ?? '(no id)'} in Drafts`;
    }
    case 'draft_reply': {
      const from = run.message.from?.emailAddress?.address ?? '';
      if (run.ownAddress && from.toLowerCase() === run.ownAddress.toLowerCase()) return 'no reply to your own message';
      if (run.ctx.model.kind === 'template') {
        await suggestReply(run.ctx, id, run.clean, run.category);
        return 'template reply kept as a suggestion (no draft in the mailbox)';
      }
      const draft = await ensureDraft(run.ctx, run.graph, run.message, run.clean, run.category);
      return `${draft.reused ? 'existing ' : ''}draft ${draft.draftId}`;
    }
  }
}

/**
 * Runs the actions on the message in order, each recorded (D1 `ai_rule_actions`, per message and
 * action index) and traced. An action recorded `ok` is skipped, so a retry never repeats one
 * that succeeded; a refusal (4xx: no such folder, say) is recorded `failed` and the next action
 * runs; Graph throttling or failing, or the model failing, stops the run and throws
 * ActionsDeferred (with Graph's Retry-After) so the caller tries again later.
 */
export async function runActions(run: ActionRun, actions: RuleAction[]): Promise<ActionsOutcome> {
  const { ctx } = run;
  const outcome: ActionsOutcome = { ran: 0, skipped: 0, failed: 0 };
  for (const [index, action] of actions.entries()) {
    const name = `action ${index + 1}: ${describeAction(action)}`;
    const started = Date.now();
    const step = (result: string, detail: string) =>
      ctx.tracer.record({ kind: 'action', name, latencyMs: Date.now() - started, tokensIn: 0, tokensOut: 0, outcome: result, detail });
    const claim = await claimAction(ctx.db, { userId: ctx.userId, messageId: run.message.id!, index, action, traceId: ctx.tracer.id });
    if (claim !== 'claimed') {
      outcome.skipped++;
      step('skipped', claim === 'done' ? 'done before (not repeated)' : 'running elsewhere');
      continue;
    }
    try {
      const detail = await perform(run, action);
      await finishAction(ctx.db, ctx.userId, run.message.id!, index, 'ok', detail);
      outcome.ran++;
      step('ok', detail);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      await finishAction(ctx.db, ctx.userId, run.message.id!, index, 'failed', message);
      step(retryable(err) ? 'deferred' : 'failed', message);
      if (retryable(err)) {
        const seconds =
          err instanceof HttpError && typeof err.details?.retryAfterSeconds === 'number' ? err.details.retryAfterSeconds : undefined;
        throw new ActionsDeferred(`Action ${index + 1} (${describeAction(action)}) will be tried again: ${message}`, seconds);
      }
      outcome.failed++;
    }
  }
  return outcome;
}
