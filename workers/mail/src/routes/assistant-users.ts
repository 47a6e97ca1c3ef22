import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import type { MailEnv } from '../context.ts';
import { addUser, listedUsers } from '../data/users.ts';
import { apiSession, assistantAdmin, assistantAdmins, csrf, limitBody } from '../guards.ts';
import { jsonBody, security, text } from './api-common.ts';
import { ok, readErrors, writeErrors } from './assistant-common.ts';

/** The accounts allowed to use the assistant (admins only). */
export const usersApi = new OpenAPIHono<MailEnv>();

const UserSchema = z
  .object({ email: z.string(), name: z.string(), admin: z.boolean(), added_by: z.string().nullable(), created_at: z.string().nullable() })
  .openapi('AssistantUser');

usersApi.openapi(
  createRoute({
    method: 'get',
    path: '/api/admin/users',
    tags: ['Admin'],
    summary: 'The accounts allowed to use the assistant (the admins from MAIL_ASSISTANT_ADMINS first)',
    security,
    middleware: [apiSession, assistantAdmin],
    responses: { 200: ok(z.object({ items: z.array(UserSchema) })), ...readErrors },
  }),
  async (c) => {
    const admins = assistantAdmins(c.var.config.MAIL_ASSISTANT_ADMINS);
    return c.json(
      {
        items: [
          ...admins.map((email) => ({ email, name: '', admin: true, added_by: null, created_at: null })),
          ...(await listedUsers(c.var.db)),
        ],
      },
      200,
    );
  },
);

usersApi.openapi(
  createRoute({
    method: 'post',
    path: '/api/admin/users',
    tags: ['Admin'],
    summary: 'Allows an account (by its sign-in e-mail) to use the assistant',
    security,
    middleware: [apiSession, limitBody(4096), csrf, assistantAdmin],
    request: jsonBody(z.object({ email: z.email().max(320), name: text(200).default('') })),
    responses: { 201: ok(UserSchema, 'Added'), 200: ok(UserSchema, 'Was listed already'), ...writeErrors },
  }),
  async (c) => {
    const input = c.req.valid('json');
    const { user, added } = await addUser(c.var.db, { email: input.email, name: input.name, addedBy: c.var.user.email });
    return c.json(user, added ? 201 : 200);
  },
);
