import { z } from '@hono/zod-openapi';
import { HttpError } from '#shared/http-error.ts';
import type { MiddlewareHandler } from 'hono';
import { createRecategoriseJob } from '../ai/jobs.ts';
import { categoryRow } from '../data/categories.ts';
import { type MailContext, type MailEnv, mailboxStub } from '../context.ts';
import { apiMailbox, apiSession, assistant, csrf, limitBody } from '../guards.ts';
import { errors, json } from './api-common.ts';

/** The guards and answer shapes the assistant's JSON route files share. */
export const read: MiddlewareHandler<MailEnv>[] = [apiSession, assistant];
export const write = (max = 64 * 1024): MiddlewareHandler<MailEnv>[] => [apiSession, limitBody(max), csrf, assistant];
export const readMail: MiddlewareHandler<MailEnv>[] = [apiSession, assistant, apiMailbox];
export const writeMail = (max = 64 * 1024): MiddlewareHandler<MailEnv>[] => [apiSession, limitBody(max), csrf, assistant, apiMailbox];
export const readErrors = errors(400, 401, 403, 404);
export const writeErrors = errors(400, 401, 403, 404, 413);
export const aiErrors = errors(400, 401, 403, 404, 413, 502);
export const ok = <T extends z.ZodType>(schema: T, description = 'OK') => json(schema, description);
export const iso = (ms: number) => new Date(ms).toISOString();

export const SummarySchema = z
  .object({
    message_id: z.string(),
    conversation_id: z.string(),
    subject: z.string(),
    sender: z.string(),
    recipients: z.array(z.object({ name: z.string(), address: z.string() })),
    direction: z.string(),
    category: z.string(),
    summary: z.string(),
    bullets: z.array(z.string()),
    pinned: z.boolean(),
    needs_reply: z.boolean(),
    received_at: z.string().nullable(),
    updated_at: z.string(),
  })
  .openapi('EmailSummary');

/** Starts the re-categorisation of the user's stored e-mails (a job their mailbox object runs); answers the job's id. */
export async function recategorise(c: MailContext): Promise<string> {
  const jobId = await createRecategoriseJob(c.var.db, c.var.user.id);
  await mailboxStub(c.env, c.var.user.id).startJob(c.var.user.id, jobId);
  return jobId;
}

export const noCategory = (name: string) => new HttpError(404, 'not_found', `No category ${name}.`);

/** The user's category of that name; 404 when there is none. */
export async function existingCategory(c: MailContext, name: string) {
  const row = await categoryRow(c.var.db, c.var.user.id, name);
  if (!row) throw noCategory(name);
  return row;
}
