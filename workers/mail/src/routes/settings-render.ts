import type { MailContext } from '../context.ts';
import { mailboxStub } from '../context.ts';
import { jobView, latestJobs } from '../ai/jobs.ts';
import { categoryViews } from '../data/categories.ts';
import { categoryPrompt, generalPrompts } from '../data/prompts.ts';
import { listedUsers } from '../data/users.ts';
import { followUpDays as followUpDaysOf } from '../data/replies.ts';
import { assistantAdmins } from '../guards.ts';
import { type FormState, settingsPage } from '../views/settings.tsx';
import { type Flash, adminEntryFor } from './settings-form.ts';

/** Renders the page; with a form sent back, at that status. */
export async function renderSettings(
  c: MailContext,
  options: { flash?: Flash; form?: FormState; status?: 200 | 400 | 404 | 409; followUp?: { days: string; problem: string } } = {},
) {
  const { db, user } = c.var;
  const [categories, prompts, jobs, status, followUpDays] = await Promise.all([
    categoryViews(db, user.id),
    generalPrompts(db, user.id),
    latestJobs(db, user.id, 3),
    mailboxStub(c.env, user.id).status(),
    followUpDaysOf(db, user.id),
  ]);
  const withPrompts = await Promise.all(categories.map(async (x) => ({ ...x, prompt: await categoryPrompt(db, user.id, x.name) })));
  const admin = adminEntryFor(c.var.config.MAIL_ASSISTANT_ADMINS, user.email) !== undefined;
  const users = admin ? { admins: assistantAdmins(c.var.config.MAIL_ASSISTANT_ADMINS), listed: await listedUsers(db) } : undefined;
  const flash = options.flash;
  return c.html(
    settingsPage({
      user,
      csrfToken: c.var.csrfToken,
      flash: flash && { text: flash.text, kind: flash.kind },
      offerRecategorise: flash?.offer === true,
      mailboxConnected: status.connected,
      categories: withPrompts,
      prompts,
      jobs: jobs.map(jobView),
      users,
      form: options.form,
      followUp: options.followUp ?? { days: String(followUpDays) },
    }),
    options.status ?? 200,
  );
}
