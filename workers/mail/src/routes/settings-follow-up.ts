import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import type { MailEnv } from '../context.ts';
import { MAX_FOLLOW_UP_DAYS, followUpDays, setFollowUpDays } from '../data/replies.ts';
import { assistant, csrf, pageSession } from '../guards.ts';
import { jsonBody, security } from './api-common.ts';
import { ok, read, readErrors, write, writeErrors } from './assistant-common.ts';
import { formFields, formLimit, redirectWithFlash } from './settings-form.ts';
import { renderSettings } from './settings-render.ts';

/**
 * The follow-up setting (replies tracked wherever they are sent, ai/replies.ts): the settings
 * page's form and the same setting as JSON (`GET`/`PUT /api/follow-up`, the command line's
 * `follow-up`).
 */
export const settingsFollowUp = new OpenAPIHono<MailEnv>();

const FollowUpSchema = z
  .object({
    days: z
      .number()
      .int()
      .min(1)
      .max(MAX_FOLLOW_UP_DAYS)
      .openapi({ description: 'Days a sent message waits for an answer before a follow-up draft is made (never sent)' }),
  })
  .openapi('FollowUpSetting');

settingsFollowUp.openapi(
  createRoute({
    method: 'get',
    path: '/api/follow-up',
    tags: ['Replies'],
    summary: 'The follow-up reminder setting: days without an answer before a follow-up draft',
    security,
    middleware: read,
    responses: { 200: ok(FollowUpSchema), ...readErrors },
  }),
  async (c) => c.json({ days: await followUpDays(c.var.db, c.var.user.id) }, 200),
);

settingsFollowUp.openapi(
  createRoute({
    method: 'put',
    path: '/api/follow-up',
    tags: ['Replies'],
    summary: 'Sets the days a sent message waits for an answer before a follow-up draft is made',
    security,
    middleware: write(1024),
    request: jsonBody(FollowUpSchema),
    responses: { 200: ok(FollowUpSchema), ...writeErrors },
  }),
  async (c) => {
    const { days } = c.req.valid('json');
    await setFollowUpDays(c.var.db, c.var.user.id, days);
    return c.json({ days }, 200);
  },
);

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
