import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { MailEnv } from '../context.ts';
import { resolveFolder } from '../folders.ts';
import { summaryView } from '../mail-views.ts';
import { json, messageId, security, text, writeErrors, writeGuards } from './api-common.ts';

/** Changes to a message: read state, and moves (to a folder, Deleted Items, Archive). */
export const messageChangesApi = new OpenAPIHono<MailEnv>();

const MovedSchema = z.object({ id: z.string(), folderId: z.string().nullable(), folder: z.string().nullable() });

async function moveTo(c: Context<MailEnv>, id: string, destination: string) {
  const graph = c.var.graph;
  const destinationId = await resolveFolder(graph, destination);
  const [moved, wellKnown] = await Promise.all([graph.move(id, destinationId), c.var.mailbox.wellKnownFolders()]);
  const view = summaryView(moved, wellKnown);
  return { id: view.id, folderId: view.folderId, folder: view.folder };
}

messageChangesApi.openapi(
  createRoute({
    method: 'post',
    path: '/api/mark-read/{message_id}',
    tags: ['Mail'],
    summary: 'Marks a message read (or unread with `{"isRead": false}`)',
    security,
    middleware: writeGuards(4096),
    request: {
      params: z.object({ message_id: messageId }),
      body: { content: { 'application/json': { schema: z.object({ isRead: z.boolean().default(true) }) } }, required: false },
    },
    responses: { 200: json(z.object({ id: z.string(), isRead: z.boolean() }), 'The new state'), ...writeErrors },
  }),
  async (c) => {
    const { message_id } = c.req.valid('param');
    const body = (c.req.header('content-type') ?? '').startsWith('application/json') ? c.req.valid('json') : { isRead: true };
    const updated = await c.var.graph.update(message_id, { isRead: body.isRead });
    return c.json({ id: updated.id ?? message_id, isRead: updated.isRead ?? body.isRead }, 200);
  },
);

messageChangesApi.openapi(
  createRoute({
    method: 'post',
    path: '/api/move/{message_id}',
    tags: ['Mail'],
    summary: 'Moves a message to another folder',
    security,
    middleware: writeGuards(4096),
    request: {
      params: z.object({ message_id: messageId }),
      body: {
        content: { 'application/json': { schema: z.object({ dest_folder_id: text(255).pipe(z.string().min(1, 'is required')) }) } },
        required: true,
      },
    },
    responses: { 200: json(MovedSchema, 'The moved message (its id stays: immutable ids)'), ...writeErrors },
  }),
  async (c) => c.json(await moveTo(c, c.req.valid('param').message_id, c.req.valid('json').dest_folder_id), 200),
);

messageChangesApi.openapi(
  createRoute({
    method: 'post',
    path: '/api/messages/{message_id}/delete',
    tags: ['Mail'],
    summary: 'Moves a message to Deleted Items',
    security,
    middleware: writeGuards(4096),
    request: { params: z.object({ message_id: messageId }) },
    responses: { 200: json(MovedSchema, 'The message in Deleted Items'), ...writeErrors },
  }),
  async (c) => c.json(await moveTo(c, c.req.valid('param').message_id, 'deleteditems'), 200),
);

messageChangesApi.openapi(
  createRoute({
    method: 'post',
    path: '/api/messages/{message_id}/archive',
    tags: ['Mail'],
    summary: 'Moves a message to Archive',
    security,
    middleware: writeGuards(4096),
    request: { params: z.object({ message_id: messageId }) },
    responses: { 200: json(MovedSchema, 'The message in Archive'), ...writeErrors },
  }),
  async (c) => c.json(await moveTo(c, c.req.valid('param').message_id, 'archive'), 200),
);
