import { Hono } from 'hono';
import { HttpError } from '#shared/http-error.ts';
import type { ReplyMode } from '../ai/categories.ts';
import { type PromptName, categoryPromptName, isPromptName } from '../ai/prompts.ts';
import { type MailContext, type MailEnv, mailboxStub } from '../context.ts';
import { categoryRow, createCategory, deleteCategory, summarisedIds, updateCategory } from '../data/categories.ts';
import { resetPromptBody, savePromptBody } from '../data/prompts.ts';
import { GraphClient } from '../graph/client.ts';
import { assistant, csrf, pageSession } from '../guards.ts';
import { REPLY_MODES } from '../views/settings.tsx';
import { recategorise } from './assistant-common.ts';
import { categoryName } from './llm.ts';
import { categoryField, formFields, formState, formLimit, redirectWithFlash, takeFlash, textProblem } from './settings-form.ts';
import { renderSettings } from './settings-render.ts';
import { settingsUsers } from './settings-users.ts';

/**
 * The assistant's settings page: categories (name, rule, reply mode, reply prompt), the general
 * prompts, re-categorising recent mail, and (for its admins, settings-users.ts) who may use it.
 * Forms post here and are redirected back with a flash message; a form with a mistake is shown
 * again (400) with the person's input and the message beside the field.
 */
export const settingsPages = new Hono<MailEnv>();
settingsPages.route('/', settingsUsers);

/** Inbox messages, newest first, that "re-categorise recent mail" looks at. */
const RECENT_INBOX = 50;

settingsPages.get('/settings', pageSession, assistant, (c) => renderSettings(c, { flash: takeFlash(c) }));

const REPLY_MODE_VALUES: readonly string[] = REPLY_MODES.map((m) => m.value);

/** The problems of a category's name, rule and reply mode as posted; the name trimmed as the JSON routes do. */
function categoryProblems(values: Record<string, string>) {
  const name = (values.name ?? '').trim();
  const rule = values.rule ?? '';
  const mode = values.reply_mode ?? 'manual';
  let nameProblem = textProblem(values.name ?? '', 64, true);
  if (!nameProblem && !categoryName.safeParse(name).success)
    nameProblem = "Letters, digits, spaces, _ & ' - only, starting with a letter or digit.";
  if (!nameProblem && name.toLowerCase() === 'unknown') nameProblem = '“unknown” is reserved for mail that fits no category.';
  return {
    name,
    rule,
    mode: mode as ReplyMode,
    problems: {
      name: nameProblem,
      rule: textProblem(rule, 4000),
      reply_mode: REPLY_MODE_VALUES.includes(mode) ? undefined : 'Choose one of the reply modes.',
    },
  };
}

settingsPages.post('/settings/categories', pageSession, formLimit, csrf, assistant, async (c) => {
  const values = await formFields(c);
  const { name, rule, mode, problems } = categoryProblems(values);
  const invalid = formState('create', values, problems);
  if (invalid) return renderSettings(c, { form: invalid, status: 400 });
  const outcome = await createCategory(c.var.db, c.var.user.id, { name, rule, replyMode: mode });
  if (outcome !== 'created') {
    const message = outcome === 'exists' ? `You have a category “${name}” already.` : 'At most 100 categories: delete one first.';
    return renderSettings(c, { form: formState('create', values, { name: message }), status: 409 });
  }
  await recategorise(c);
  return redirectWithFlash(c, {
    text: `Category “${name}” created. Your stored e-mails are being sorted again.`,
    kind: 'notice',
    offer: true,
  });
});

settingsPages.post('/settings/categories/update', pageSession, formLimit, csrf, assistant, async (c) => {
  const values = await formFields(c);
  const current = categoryField(values.category);
  if (current === undefined) return redirectWithFlash(c, { text: 'There is no such category (any more).', kind: 'error' });
  const form = `update:${current}`;
  const { name, rule, mode, problems } = categoryProblems(values);
  const invalid = formState(form, values, problems);
  if (invalid) return renderSettings(c, { form: invalid, status: 400 });
  const result = await updateCategory(c.var.db, c.var.user.id, current, { name, rule, replyMode: mode });
  if (result.outcome === 'not_found') return redirectWithFlash(c, { text: `There is no category “${current}” (any more).`, kind: 'error' });
  if (result.outcome === 'name_taken')
    return renderSettings(c, { form: formState(form, values, { name: `You have a category “${name}” already.` }), status: 409 });
  const rerun = result.renamed || result.ruleChanged;
  if (rerun) await recategorise(c);
  const what = result.renamed ? `Category “${current}” renamed to “${name}”` : `Category “${name}” saved`;
  return redirectWithFlash(c, {
    text: rerun ? `${what}. Your stored e-mails are being sorted again.` : `${what}.`,
    kind: 'notice',
    offer: rerun,
  });
});

settingsPages.post('/settings/categories/delete', pageSession, formLimit, csrf, assistant, async (c) => {
  const category = categoryField((await formFields(c)).category);
  const reset = category === undefined ? undefined : await deleteCategory(c.var.db, c.var.user.id, category);
  if (category === undefined || reset === undefined)
    return redirectWithFlash(c, { text: `There is no category “${category ?? ''}” (any more).`, kind: 'error' });
  return redirectWithFlash(c, {
    text: `Category “${category}” deleted; ${reset} e-mail${reset === 1 ? '' : 's'} went back to “unknown”.`,
    kind: 'notice',
    offer: true,
  });
});

/** The prompt a form names: a general one (`prompt`) or a category's reply prompt (`category`); undefined when neither exists. */
async function promptNamed(c: MailContext, values: Record<string, string>): Promise<{ name: string; title: string } | undefined> {
  if (values.prompt !== undefined)
    return isPromptName(values.prompt) ? { name: values.prompt satisfies PromptName, title: `The prompt “${values.prompt}”` } : undefined;
  const category = categoryField(values.category);
  if (category === undefined || !(await categoryRow(c.var.db, c.var.user.id, category))) return undefined;
  return { name: categoryPromptName(category), title: `The reply prompt of “${category}”` };
}

settingsPages.post('/settings/prompts', pageSession, formLimit, csrf, assistant, async (c) => {
  const values = await formFields(c);
  const prompt = await promptNamed(c, values);
  if (!prompt) return redirectWithFlash(c, { text: 'There is no such prompt (was its category deleted?).', kind: 'error' });
  const body = values.body ?? '';
  const invalid = formState(`prompt:${prompt.name}`, values, { body: textProblem(body, 20_000, true) });
  if (invalid) return renderSettings(c, { form: invalid, status: 400 });
  await savePromptBody(c.var.db, c.var.user.id, prompt.name, body.trim());
  return redirectWithFlash(c, { text: `${prompt.title} is saved.`, kind: 'notice' });
});

settingsPages.post('/settings/prompts/reset', pageSession, formLimit, csrf, assistant, async (c) => {
  const prompt = await promptNamed(c, await formFields(c));
  if (!prompt) return redirectWithFlash(c, { text: 'There is no such prompt (was its category deleted?).', kind: 'error' });
  const had = await resetPromptBody(c.var.db, c.var.user.id, prompt.name);
  return redirectWithFlash(c, {
    text: had ? `${prompt.title} is back to the default.` : `${prompt.title} was the default already.`,
    kind: 'notice',
  });
});

/**
 * Re-categorise recent mail, in the background: the re-categorisation job of the stored
 * e-mails (the one a new category starts), and the newest Inbox messages that have no summary
 * yet handed to the mailbox object's new-mail queue, which summarises and categorises them as
 * it does new mail.
 */
settingsPages.post('/settings/recategorise', pageSession, formLimit, csrf, assistant, async (c) => {
  const userId = c.var.user.id;
  await recategorise(c);
  const mailbox = mailboxStub(c.env, userId);
  const status = await mailbox.status();
  if (!status.connected)
    return redirectWithFlash(c, {
      text: 'Your stored e-mails are being sorted again. Connect your mailbox to include Inbox messages not yet summarised.',
      kind: 'notice',
    });
  let queued: number;
  try {
    const graph = new GraphClient(mailbox, c.var.config.GRAPH_BASE_URL);
    const recent = (await graph.messages('inbox', { top: RECENT_INBOX, fields: ['id', 'isDraft'] })).value ?? [];
    const ids = recent.filter((m) => m.id && !m.isDraft).map((m) => m.id!);
    const known = await summarisedIds(c.var.db, userId, ids);
    const fresh = ids.filter((id) => !known.has(id));
    const now = Date.now();
    if (fresh.length)
      await mailbox.notified(
        fresh.map((id) => ({
          subscriptionId: 'settings:recategorise',
          changeType: 'created',
          resource: `me/messages/${id}`,
          messageId: id,
          receivedAt: now,
        })),
        userId,
      );
    queued = fresh.length;
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    return redirectWithFlash(c, {
      text: `Your stored e-mails are being sorted again, but the Inbox could not be read just now (${err.message}): try again in a moment.`,
      kind: 'error',
    });
  }
  return redirectWithFlash(c, {
    text: `Your stored e-mails are being sorted again${queued ? `, and ${queued} recent Inbox message${queued === 1 ? '' : 's'} not yet summarised ${queued === 1 ? 'is' : 'are'} being summarised and categorised` : ''}.`,
    kind: 'notice',
  });
});
