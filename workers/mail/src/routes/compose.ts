import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import type { Message } from '@microsoft/microsoft-graph-types';
import { HttpError } from '#shared/http-error.ts';
import type { MailEnv } from '../context.ts';
import { asHtml } from '../mail-views.ts';
import {
  MAX_BODY_CHARS,
  addressList,
  json,
  jsonBody,
  messageFields,
  messageId,
  recipients,
  security,
  text,
  writeErrors,
  writeGuards,
} from './api-common.ts';
import { newMessage } from './new-message.ts';

/** Sending: a new message, and a reply to one. */
export const composeApi = new OpenAPIHono<MailEnv>();

const ComposeBody = z
  .object(messageFields)
  .refine((b) => b.to.length + b.cc.length + b.bcc.length > 0, {
    message: 'at least one recipient (to, cc or bcc) is required',
    path: ['to'],
  })
  .openapi('Compose');

composeApi.openapi(
  createRoute({
    method: 'post',
    path: '/api/compose/send',
    tags: ['Mail'],
    summary: 'Sends a new message (To, CC, BCC, Subject, Body); a copy goes to Sent Items',
    security,
    middleware: writeGuards(2 * 1024 * 1024),
    request: jsonBody(ComposeBody),
    responses: {
      202: json(z.object({ sent: z.literal(true), recipients: z.number().int() }), 'Accepted by Graph for delivery'),
      ...writeErrors,
    },
  }),
  async (c) => {
    const mail = c.req.valid('json');
    await c.var.graph.sendMail(newMessage(mail, asHtml(mail.body)));
    return c.json({ sent: true as const, recipients: mail.to.length + mail.cc.length + mail.bcc.length }, 202);
  },
);

const ReplyBody = z
  .object({
    body: text(MAX_BODY_CHARS).pipe(z.string().trim().min(1, 'is required')),
    all: z.boolean().default(false).openapi({ description: 'Reply to everyone on the message' }),
    cc: addressList,
    bcc: addressList,
  })
  .openapi('Reply');

composeApi.openapi(
  createRoute({
    method: 'post',
    path: '/api/reply/{message_id}',
    tags: ['Mail'],
    summary: 'Replies to a message: createReply (quoting the original), the text and extra CC/BCC, then send',
    security,
    middleware: writeGuards(2 * 1024 * 1024),
    request: {
      params: z.object({ message_id: messageId }),
      body: { content: { 'application/json': { schema: ReplyBody } }, required: true },
    },
    responses: { 202: json(z.object({ sent: z.literal(true), draftId: z.string() }), 'Sent'), ...writeErrors },
  }),
  async (c) => {
    const { message_id } = c.req.valid('param');
    const reply = c.req.valid('json');
    const graph = c.var.graph;
    const draft = await graph.createReply(message_id, reply.all);
    if (!draft.id) throw new HttpError(502, 'graph_unavailable', 'Graph answered a reply draft without an id.');
    const quoted = draft.body?.content ?? '';
    const changes: Message = { body: { contentType: 'html', content: `${asHtml(reply.body)}${quoted}` } };
    if (reply.cc.length) changes.ccRecipients = [...(draft.ccRecipients ?? []), ...recipients(reply.cc)];
    if (reply.bcc.length) changes.bccRecipients = recipients(reply.bcc);
    try {
      await graph.update(draft.id, changes);
      await graph.send(draft.id);
    } catch (err) {
      // Nothing half-written: the unsent draft goes again.
      await graph.deleteMessage(draft.id).catch(() => undefined);
      throw err;
    }
    return c.json({ sent: true as const, draftId: draft.id }, 202);
  },
);
