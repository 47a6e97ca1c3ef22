import { OpenAPIHono } from '@hono/zod-openapi';
import type { MailEnv } from '../context.ts';
import { composeApi } from './compose.ts';
import { messageBodyApi } from './message-body.ts';
import { messageChangesApi } from './message-changes.ts';
import { messagesApi } from './messages.ts';

/** The mailbox's JSON routes (gate "token": a session and a connected mailbox), one file per resource. */
export const api = new OpenAPIHono<MailEnv>();

api.route('/', messagesApi);
api.route('/', messageBodyApi);
api.route('/', messageChangesApi);
api.route('/', composeApi);
