import { Hono } from 'hono';
import { HttpError } from '#shared/http-error.ts';
import { jobView } from '../ai/jobs.ts';
import { ModelError } from '../ai/model.ts';
import { MAX_ACTIONS, type RuleAction, RuleActionsSchema } from '../ai/rule-actions.ts';
import { MAX_APPLY_MESSAGES, applyJobs } from '../ai/rules-job.ts';
import { testRules } from '../ai/rules-test.ts';
import { aiContext, traced, tracedGraph } from '../ai/run.ts';
import { type MailContext, type MailEnv, mailboxStub } from '../context.ts';
import { rulesOf, setActions } from '../data/rules.ts';
import { resolveFolder } from '../folders.ts';
import { GraphClient } from '../graph/client.ts';
import { assistant, csrf, pageSession } from '../guards.ts';
import type { FormState } from '../views/settings.tsx';
import { type RulesView, rulesPage } from '../views/rules.tsx';
import { MAX_TEST_MESSAGES, startApply } from './rules.ts';
import { categoryField, formFields, formLimit, formState, redirectWithFlash, takeFlash, textProblem } from './settings-form.ts';

/**
 * The rules section of the settings (`/settings/rules`): each category's actions as rows of
 * plain form fields (no script needed), "Test the rules" (the answer drawn on the page) and
 * "Apply to existing mail" (a background job, its progress listed). Same guards as /settings.
 */
export const rulesPages = new Hono<MailEnv>();

async function render(c: MailContext, extra: Partial<RulesView> = {}, status: 200 | 400 | 404 | 409 = 200) {
  const { db, user } = c.var;
  const [rules, jobs, mailbox] = await Promise.all([rulesOf(db, user.id), applyJobs(db, user.id), mailboxStub(c.env, user.id).status()]);
  const flash = extra.flash ?? takeFlash(c);
  return c.html(
    rulesPage({
      user,
      csrfToken: c.var.csrfToken,
      flash: flash && { text: flash.text, kind: flash.kind },
      mailboxConnected: mailbox.connected,
      rules,
      jobs: jobs.map(jobView),
      ...extra,
    }),
    status,
  );
}

rulesPages.get('/settings/rules', pageSession, assistant, (c) => render(c));

const back = (c: MailContext, text: string, kind: 'notice' | 'error' = 'notice') => redirectWithFlash(c, { text, kind }, '/settings/rules');

/** The rows of a category's form as actions, or the problems by field. */
function actionsFromRows(values: Record<string, string>): { actions: RuleAction[]; problems: Record<string, string | undefined> } {
  const problems: Record<string, string | undefined> = {};
  const raw: { row: number; action: unknown }[] = [];
  for (let i = 0; i < MAX_ACTIONS; i++) {
    const type = values[`type_${i}`] ?? '';
    const value = values[`value_${i}`] ?? '';
    const problem = textProblem(type, 40) ?? textProblem(value, 4000);
    if (problem) {
      problems[`value_${i}`] = problem;
      continue;
    }
    if (!type) continue;
    const list = value
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean);
    const action =
      type === 'move'
        ? { type, folder: value }
        : type === 'categorize'
          ? { type, categories: list }
          : type === 'forward_draft'
            ? { type, to: list }
            : { type };
    raw.push({ row: i, action });
  }
  const parsed = RuleActionsSchema.safeParse(raw.map((r) => r.action));
  if (!parsed.success)
    for (const issue of parsed.error.issues) {
      const row = raw[Number(issue.path[0])]?.row ?? 0;
      const field = issue.path.length > 1 || issue.code !== 'invalid_union' ? `value_${row}` : `type_${row}`;
      problems[field] ??=
        issue.path[1] === 'folder'
          ? 'Name the folder.'
          : issue.path[1] === 'categories'
            ? `Outlook categories, comma-separated (at most 10, each up to 255 characters): ${issue.message}.`
            : issue.path[1] === 'to'
              ? `E-mail addresses, comma-separated (at most 10): ${issue.message}.`
              : issue.code === 'invalid_union'
                ? 'Choose one of the actions.'
                : issue.message;
    }
  return { actions: parsed.success ? parsed.data : [], problems };
}

rulesPages.post('/settings/rules', pageSession, formLimit, csrf, assistant, async (c) => {
  const values = await formFields(c);
  const category = categoryField(values.category);
  if (category === undefined) return back(c, 'There is no such category (any more).', 'error');
  const { actions, problems } = actionsFromRows(values);
  const invalid = formState(`rules:${category}`, values, problems);
  if (invalid) return render(c, { form: invalid }, 400);
  if (!(await setActions(c.var.db, c.var.user.id, category, actions)))
    return back(c, `There is no category “${category}” (any more).`, 'error');
  return back(c, `The actions of “${category}” are saved (${actions.length}).`);
});

/** The folder and count of the test and apply forms, or the form sent back. */
function folderAndCount(form: string, values: Record<string, string>, max: number) {
  const folder = (values.folder ?? '').trim();
  const count = Number(values.count ?? '');
  const invalid = formState(form, values, {
    folder: textProblem(values.folder ?? '', 255, true),
    count: Number.isInteger(count) && count >= 1 && count <= max ? undefined : `A whole number from 1 to ${max}.`,
  });
  return { folder, count, invalid };
}

/** The signed-in user's mailbox, or undefined when none is connected. */
async function connectedGraph(c: MailContext): Promise<GraphClient | undefined> {
  const mailbox = mailboxStub(c.env, c.var.user.id);
  if (!(await mailbox.status()).connected) return undefined;
  c.set('mailbox', mailbox);
  return new GraphClient(mailbox, c.var.config.GRAPH_BASE_URL);
}

/** A Graph or model failure as the page's message (a refusal of the folder as the field's). */
function failureText(err: unknown): string | undefined {
  if (err instanceof HttpError && err.status !== 404) return `Microsoft Graph or the model failed: ${err.message} Try again in a moment.`;
  if (err instanceof ModelError) return `The model failed: ${err.message}`;
  return undefined;
}

rulesPages.post('/settings/rules/test', pageSession, formLimit, csrf, assistant, async (c) => {
  const values = await formFields(c);
  const { folder, count, invalid } = folderAndCount('test', values, MAX_TEST_MESSAGES);
  if (invalid) return render(c, { form: invalid }, 400);
  const graph = await connectedGraph(c);
  if (!graph) return back(c, 'Connect your mailbox first.', 'error');
  try {
    const folderId = await resolveFolder(graph, folder);
    const ctx = aiContext(c, 'rules test');
    const items = await traced(ctx, () => testRules(ctx, tracedGraph(c, ctx), folderId, count));
    return render(c, { test: { folder, count, items, traceId: ctx.tracer.id } });
  } catch (err) {
    if (err instanceof HttpError && err.status === 404)
      return render(c, { form: formState('test', values, { folder: `Your mailbox has no folder “${folder}”.` }) as FormState }, 404);
    const text = failureText(err);
    if (text) return back(c, text, 'error');
    throw err;
  }
});

rulesPages.post('/settings/rules/apply', pageSession, formLimit, csrf, assistant, async (c) => {
  const values = await formFields(c);
  const { folder, count, invalid } = folderAndCount('apply', values, MAX_APPLY_MESSAGES);
  if (invalid) return render(c, { form: invalid }, 400);
  const graph = await connectedGraph(c);
  if (!graph) return back(c, 'Connect your mailbox first.', 'error');
  try {
    const { total } = await startApply(c, graph, folder, count);
    return back(c, `Applying the rules to ${total} message${total === 1 ? '' : 's'} of “${folder}” in the background.`);
  } catch (err) {
    if (err instanceof HttpError && err.status === 404)
      return render(c, { form: formState('apply', values, { folder: `Your mailbox has no folder “${folder}”.` }) as FormState }, 404);
    if (err instanceof HttpError && err.status === 409) return back(c, err.message, 'error');
    const text = failureText(err);
    if (text) return back(c, text, 'error');
    throw err;
  }
});
