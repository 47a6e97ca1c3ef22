import { z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { NUL_MESSAGE, hasNul } from '#shared/text.ts';
import type { MailEnv } from '../context.ts';
import { apiMailbox, apiSession, csrf, limitBody } from '../guards.ts';

// What the JSON routes of the service share: field schemas, answer and error shapes, the guards of the mailbox's routes.

const noNul = (s: string) => !hasNul(s);
export const text = (max: number) => z.string().max(max, `must be at most ${max} characters`).refine(noNul, NUL_MESSAGE);
export const messageId = z
  .string()
  .regex(/^[A-Za-z0-9=+_.:-]{1,512}$/, 'must be a Graph message id')
  .openapi({ param: { name: 'message_id', in: 'path' } });

export const ErrorSchema = z
  .object({ error: z.string(), message: z.string(), request_id: z.string().optional() })
  .passthrough()
  .openapi('Error');
export const json = <T extends z.ZodType>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });
/** A route's required JSON body (`request` of createRoute). */
export const jsonBody = <T extends z.ZodType>(schema: T) => ({ body: { content: { 'application/json': { schema } }, required: true } });
/** The `trace_id` of an answer of the assistant. */
export const TraceId = z.string().openapi({ description: 'The trace of this call: /trace/<trace_id>' });
export const errors = (...codes: number[]) =>
  Object.fromEntries(codes.map((code) => [code, json(ErrorSchema, ERROR_TEXT[code] ?? 'Error')]));
const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid input, or Graph refused it',
  401: 'Not signed in, or no mailbox connected',
  403: 'Anti-forgery check failed, or not allowed',
  429: 'Too many requests',
  404: 'No such message or folder',
  413: 'Body too large',
  502: 'Graph failed, timed out or kept throttling',
  503: 'Too many reads of the mailbox are waiting for Graph: try again after Retry-After',
};
/** The failures of the mailbox's routes (reads, changes). */
export const readErrors = errors(400, 401, 404, 502, 503);
export const writeErrors = errors(400, 401, 403, 404, 413, 502, 503);

export const security = [{ session: [] }];
/** Gate "token" on a read. */
export const readGuards: MiddlewareHandler<MailEnv>[] = [apiSession, apiMailbox];
/** Gate "token" on a change: session, body cap, anti-forgery, mailbox. */
export const writeGuards = (maxBody = 64 * 1024): MiddlewareHandler<MailEnv>[] => [apiSession, limitBody(maxBody), csrf, apiMailbox];
export const folderName = z
  .string()
  .min(1)
  .max(255)
  .refine(noNul, NUL_MESSAGE)
  .openapi({ param: { name: 'folder_name', in: 'path' }, example: 'inbox' });

// ---- the fields of a new message ---------------------------------------------------------

export const MAX_BODY_CHARS = 1_000_000;
export const addressList = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((value, ctx) => {
    const list = (Array.isArray(value) ? value : (value ?? '').split(/[,;]/)).map((a) => a.trim()).filter(Boolean);
    for (const a of list) {
      if (a.length > 320 || !z.email().safeParse(a).success)
        ctx.addIssue({ code: 'custom', message: `"${a.slice(0, 100)}" is not an e-mail address` });
    }
    if (list.length > 100) ctx.addIssue({ code: 'custom', message: 'at most 100 addresses' });
    return list;
  })
  .openapi({ description: 'Addresses: an array, or one string separated by commas', type: 'array', items: { type: 'string' } });

export const recipients = (list: string[]) => list.map((address) => ({ emailAddress: { address } }));

/** The fields of a new message: recipients, subject and body (compose, and new drafts). */
export const messageFields = {
  to: addressList,
  cc: addressList,
  bcc: addressList,
  subject: text(255).default(''),
  body: text(MAX_BODY_CHARS).default(''),
};
