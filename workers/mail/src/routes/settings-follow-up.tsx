import { Hono } from 'hono';
import type { MailEnv } from '../context.ts';
import { MAX_FOLLOW_UP_DAYS, setFollowUpDays } from '../data/replies.ts';
import { assistant, csrf, pageSession } from '../guards.ts';
import { formFields, formLimit, redirectWithFlash } from './settings-form.ts';
import { renderSettings } from './settings-render.tsx';

/** The settings page's follow-up setting (replies tracked wherever they are sent, ai/replies.ts). */
export const settingsFollowUp = new Hono<MailEnv>();

settingsFollowUp.post('/settings/follow-up', pageSession, formLimit, csrf, assistant, async (c) => {
  const values = await formFields(c);
  const raw = (values.days ?? '').trim();
  const days = /^\d{1,3}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(days >= 1 && days <= MAX_FOLLOW_UP_DAYS))
    return renderSettings(c, {
      status: 400,
      followUp: { days: raw.slice(0, 20), problem: `A whole number of days from 1 to ${MAX_FOLLOW_UP_DAYS}.` },
    });
  await setFollowUpDays(c.var.db, c.var.user.id, days);
  return redirectWithFlash(c, {
    text: `Follow-up drafts are made after ${days} day${days === 1 ? '' : 's'} without an answer.`,
    kind: 'notice',
  });
});
