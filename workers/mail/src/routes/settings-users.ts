import { z } from '@hono/zod-openapi';
import { Hono } from 'hono';
import type { MailEnv } from '../context.ts';
import { addUser, listedUser, removeUser } from '../data/users.ts';
import { assistantAdmin, assistantAdmins, csrf, pageSession } from '../guards.ts';
import { renderSettings } from './settings-render.ts';
import { adminEntryFor, formFields, formState, redirectWithFlash, textProblem, userFormLimit } from './settings-form.ts';

/** The settings page's forms for who may use the assistant (its admins only). */
export const settingsUsers = new Hono<MailEnv>();

const Email = z.email().max(320);

settingsUsers.post('/settings/users', pageSession, userFormLimit, csrf, assistantAdmin, async (c) => {
  const values = await formFields(c);
  const email = (values.email ?? '').trim();
  const name = values.name ?? '';
  let emailProblem = textProblem(values.email ?? '', 320, true);
  if (!emailProblem && !Email.safeParse(email).success) emailProblem = 'Not an e-mail address.';
  const invalid = formState('add-user', values, { email: emailProblem, name: textProblem(name, 200) });
  if (invalid) return renderSettings(c, { form: invalid, status: 400 });
  const { user, added } = await addUser(c.var.db, { email, name: name.trim(), addedBy: c.var.user.email });
  return redirectWithFlash(c, {
    text: added ? `${user.email} may now use the assistant.` : `${user.email} was on the list already.`,
    kind: 'notice',
  });
});

/**
 * Takes an account off the list. Refused: yourself, and an admin (MAIL_ASSISTANT_ADMINS, the
 * only admins there are: they are changed in that setting, so the assistant keeps its last one).
 */
settingsUsers.post('/settings/users/remove', pageSession, userFormLimit, csrf, assistantAdmin, async (c) => {
  const values = await formFields(c);
  const email = (values.email ?? '').trim().toLowerCase();
  const refuse = (message: string, status: 400 | 404 | 409) =>
    renderSettings(c, { form: formState('remove-user', { email }, { email: message }), status });
  const problem = textProblem(values.email ?? '', 320, true);
  if (problem) return refuse(`The address: ${problem}`, 400);
  if (email === c.var.user.email.toLowerCase()) return refuse('You cannot remove yourself: another admin can.', 409);
  const setting = c.var.config.MAIL_ASSISTANT_ADMINS;
  const entry = adminEntryFor(setting, email);
  if (entry !== undefined) {
    const last = assistantAdmins(setting).length === 1;
    const through = entry.startsWith('@') ? ` (every address ${entry} is one)` : '';
    return refuse(
      `${email} is ${last ? 'the assistant’s last administrator' : 'an administrator'}${through}: administrators are set in MAIL_ASSISTANT_ADMINS and cannot be removed here.`,
      409,
    );
  }
  if (!(await listedUser(c.var.db, email))) return refuse(`${email} is not on the list.`, 404);
  const { removed, jobsCancelled } = await removeUser(c.var.db, email);
  if (!removed) return refuse(`${email} is not on the list.`, 404);
  return redirectWithFlash(c, {
    text: `${email} may no longer use the assistant${jobsCancelled ? ` (${jobsCancelled} running re-categorisation${jobsCancelled === 1 ? '' : 's'} cancelled)` : ''}.`,
    kind: 'notice',
  });
});
