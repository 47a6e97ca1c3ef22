import type { Message } from '@microsoft/microsoft-graph-types';
import type { GraphClient } from '../graph/client.ts';
import { rulesOf } from '../data/rules.ts';
import { categoriesOf } from './categories.ts';
import { messageText } from './pipeline.ts';
import { describeAction, type RuleActionType } from './rule-actions.ts';
import { type TaskContext, classifyExplained, classifyPrompt } from './task.ts';

/**
 * "Test the rules": the newest messages of a folder classified by the current rules, with the
 * model's reason and the actions their category would run — without acting. Only Graph reads
 * (the list and each message), nothing stored but the trace.
 */

export interface RuleTestItem {
  message_id: string;
  subject: string;
  from: string;
  received_at: string | null;
  category: string;
  reason: string | null;
  actions: { type: RuleActionType; description: string }[];
}

/** Messages read and classified at once. */
const PARALLEL = 2;

export async function testRules(ctx: TaskContext, graph: GraphClient, folderId: string, count: number): Promise<RuleTestItem[]> {
  const [list, categories, rules] = await Promise.all([
    graph.messages(folderId, { top: count, fields: ['id', 'isDraft'] }),
    categoriesOf(ctx.db, ctx.userId),
    rulesOf(ctx.db, ctx.userId),
  ]);
  const ids = (list.value ?? []).filter((m) => m.id && !m.isDraft).map((m) => m.id!);
  const system = categories.length ? await classifyPrompt(ctx) : undefined;
  // a category in `draft` reply mode drafts a reply to new mail before its actions
  const actionsOf = new Map(
    rules.map((r) => [
      r.category,
      [
        ...(r.reply_mode === 'draft'
          ? [{ type: 'draft_reply' as const, description: 'draft a reply (the reply mode; new mail only)' }]
          : []),
        ...r.actions.map((a) => ({ type: a.type, description: describeAction(a) })),
      ],
    ]),
  );
  const out: RuleTestItem[] = new Array(ids.length);
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const at = next++;
      const message: Message = await graph.message(ids[at]!);
      const { clean } = messageText(message);
      const { category, reason } = await classifyExplained(ctx, clean, categories, system);
      const from = message.from?.emailAddress;
      out[at] = {
        message_id: ids[at]!,
        subject: message.subject ?? '',
        from: from?.address ? (from.name && from.name !== from.address ? `${from.name} <${from.address}>` : from.address) : '',
        received_at: message.receivedDateTime ?? null,
        category,
        reason: reason ?? null,
        actions: actionsOf.get(category) ?? [],
      };
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, ids.length) }, worker));
  return out;
}
