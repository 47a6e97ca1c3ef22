import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import type { MailFolder } from '@microsoft/microsoft-graph-types';
import { fileHeaders } from '#shared/downloads.ts';
import { HttpError } from '#shared/http-error.ts';
import { InflatedTooLarge, extractText, textKindOf } from '../attachment-text.ts';
import { webhookUrl } from '../connection.ts';
import type { MailEnv } from '../context.ts';
import { resolveFolder } from '../folders.ts';
import { type GraphTransport, graphHttpError } from '../graph/client.ts';
import {
  ErrorSchema,
  json,
  jsonBody,
  messageFields,
  messageId,
  readErrors,
  readGuards,
  security,
  text,
  writeErrors,
  writeGuards,
} from './api-common.ts';
import { newMessage } from './new-message.ts';
import { AttachmentSchema, FolderSchema, asHtml, attachmentView, folderView } from '../mail-views.ts';
import { resubscribe } from '../subscriptions.ts';

/**
 * Routes beyond the spec's table that the command line (`npm run mail`) uses: the mailbox's
 * account, folder creation, new drafts, attachments and their text, the subscription. Gate
 * "token" on each (changes also anti-forgery and a body cap), declared here on the route.
 */
export const tools = new OpenAPIHono<MailEnv>();

const attachmentId = z
  .string()
  .regex(/^[A-Za-z0-9=+_.:-]{1,512}$/, 'must be a Graph attachment id')
  .openapi({ param: { name: 'attachment_id', in: 'path' } });
const codeErrors = {
  409: json(ErrorSchema, 'A folder of that name exists there'),
  413: json(ErrorSchema, 'Body, or the attachment to read, too large'),
  415: json(ErrorSchema, 'No text can be read from this kind of attachment'),
};
/** Largest attachment whose text is read here (the parse runs in the request's CPU time). */
const MAX_TEXT_ATTACHMENT_BYTES = 5 * 1024 * 1024;
/** The largest attachment downloaded (below the 32 MiB a Durable Object call carries, with room for its framing). */
const MAX_DOWNLOAD_BYTES = 30 * 1024 * 1024;
/** Longest text answered; the rest is cut and `truncated` says so. */
const MAX_TEXT_CHARS = 200_000;

const enc = encodeURIComponent;

// ---- the account -------------------------------------------------------------------------

const MeSchema = z
  .object({
    user: z
      .object({ id: z.number().int(), email: z.string(), name: z.string() })
      .openapi({ description: 'The signed-in back-office user' }),
    mailbox: z
      .object({ id: z.string(), displayName: z.string(), mail: z.string(), userPrincipalName: z.string() })
      .openapi({ description: 'The connected mailbox (Graph /me)' }),
  })
  .openapi('Me');

tools.openapi(
  createRoute({
    method: 'get',
    path: '/api/me',
    tags: ['Command line'],
    summary: 'The signed-in user and their connected mailbox’s account',
    security,
    middleware: readGuards,
    responses: { 200: json(MeSchema, 'Who is signed in, and whose mailbox is read'), ...readErrors },
  }),
  async (c) => {
    const me = await c.var.graph.me();
    return c.json(
      {
        user: c.var.user,
        mailbox: {
          id: me.id ?? '',
          displayName: me.displayName ?? '',
          mail: me.mail ?? me.userPrincipalName ?? '',
          userPrincipalName: me.userPrincipalName ?? '',
        },
      },
      200,
    );
  },
);

// ---- folders -----------------------------------------------------------------------------

const NewFolder = z
  .object({
    name: text(255).pipe(z.string().trim().min(1, 'is required')),
    parent: text(255).optional().openapi({ description: 'Parent folder (well-known name, display name or id); top level when absent' }),
  })
  .openapi('NewFolder');

tools.openapi(
  createRoute({
    method: 'post',
    path: '/api/folders',
    tags: ['Command line'],
    summary: 'Creates a mail folder (at the top level, or inside `parent`)',
    security,
    middleware: writeGuards(4096),
    request: jsonBody(NewFolder),
    responses: { 201: json(FolderSchema, 'The new folder'), ...writeErrors, 409: codeErrors[409] },
  }),
  async (c) => {
    const { name, parent } = c.req.valid('json');
    const path = parent ? `/me/mailFolders/${enc(await resolveFolder(c.var.graph, parent))}/childFolders` : '/me/mailFolders';
    // through the mailbox object itself: Graph's 409 is this route's own answer
    const mailbox: GraphTransport = c.var.mailbox;
    const result = await mailbox.graph({ method: 'POST', path, body: { displayName: name } });
    if (!result.ok) {
      if (result.kind === 'rejected' && result.status === 409)
        throw new HttpError(409, 'folder_exists', `A folder "${name}" exists there already.`);
      throw graphHttpError(result);
    }
    return c.json(folderView(result.json as MailFolder, await c.var.mailbox.wellKnownFolders()), 201);
  },
);

// ---- new drafts --------------------------------------------------------------------------

const NewDraft = z
  .object({
    ...messageFields,
    html: z.boolean().default(false).openapi({ description: 'The body is HTML (else plain text, escaped and line breaks kept)' }),
  })
  .openapi('NewDraft');

const DraftSchema = z
  .object({
    id: z.string(),
    subject: z.string(),
    to: z.array(z.string()),
    cc: z.array(z.string()),
    bcc: z.array(z.string()),
    webLink: z.string().nullable(),
  })
  .openapi('Draft');

tools.openapi(
  createRoute({
    method: 'post',
    path: '/api/drafts',
    tags: ['Command line'],
    summary: 'Creates a new draft (not a reply) in Drafts; recipients may be left for later',
    security,
    middleware: writeGuards(2 * 1024 * 1024),
    request: jsonBody(NewDraft),
    responses: { 201: json(DraftSchema, 'The draft'), ...writeErrors },
  }),
  async (c) => {
    const draft = c.req.valid('json');
    const created = await c.var.graph.createDraft(newMessage(draft, draft.html ? draft.body : asHtml(draft.body)));
    if (!created?.id) throw new HttpError(502, 'graph_unavailable', 'Graph answered a draft without an id.');
    return c.json(
      {
        id: created.id,
        subject: created.subject ?? draft.subject,
        to: draft.to,
        cc: draft.cc,
        bcc: draft.bcc,
        webLink: created.webLink ?? null,
      },
      201,
    );
  },
);

// ---- attachments -------------------------------------------------------------------------

const messageParam = z.object({ message_id: messageId });
const attachmentParams = z.object({ message_id: messageId, attachment_id: attachmentId });

tools.openapi(
  createRoute({
    method: 'get',
    path: '/api/email/{message_id}/attachments',
    tags: ['Command line'],
    summary: 'A message’s attachments (without their content)',
    security,
    middleware: readGuards,
    request: { params: messageParam },
    responses: {
      200: json(z.object({ message_id: z.string(), attachments: z.array(AttachmentSchema) }), 'The attachments'),
      ...readErrors,
    },
  }),
  async (c) => {
    const { message_id } = c.req.valid('param');
    const list = await c.var.graph.attachments(message_id);
    return c.json({ message_id, attachments: list.map(attachmentView) }, 200);
  },
);

tools.openapi(
  createRoute({
    method: 'get',
    path: '/api/email/{message_id}/attachments/{attachment_id}',
    tags: ['Command line'],
    summary: 'An attachment’s content, as a download',
    security,
    middleware: readGuards,
    request: { params: attachmentParams },
    responses: {
      200: {
        description:
          'The attachment’s bytes as a download: its own content type when that is a passive one (raster images, PDF, plain text, audio, video), else application/octet-stream',
        content: { 'application/octet-stream': { schema: z.string() } },
      },
      ...readErrors,
      413: codeErrors[413],
    },
  }),
  async (c) => {
    const { message_id, attachment_id } = c.req.valid('param');
    const meta = attachmentView(await c.var.graph.attachment(message_id, attachment_id));
    // the bytes come through the mailbox object, whose calls carry at most 32 MiB
    if (meta.size > MAX_DOWNLOAD_BYTES)
      throw new HttpError(
        413,
        'attachment_too_large',
        `The attachment is ${meta.size} bytes; attachments up to ${MAX_DOWNLOAD_BYTES} bytes are downloaded here.`,
      );
    const bytes = await c.var.graph.attachmentBytes(message_id, attachment_id);
    // The sender chose the type: always a download, its own type only when on the inline allow-list.
    return c.body(bytes, 200, fileHeaders(meta.contentType, { name: meta.name || 'attachment', disposition: 'attachment' }));
  },
);

const TextAnswer = z
  .object({
    message_id: z.string(),
    attachment_id: z.string(),
    name: z.string(),
    contentType: z.string(),
    kind: z.enum(['text', 'html', 'pdf']),
    text: z.string(),
    truncated: z.boolean(),
  })
  .openapi('AttachmentText');

tools.openapi(
  createRoute({
    method: 'get',
    path: '/api/email/{message_id}/attachments/{attachment_id}/text',
    tags: ['Command line'],
    summary: 'The readable text of a text, HTML or PDF attachment',
    security,
    middleware: readGuards,
    request: { params: attachmentParams },
    responses: { 200: json(TextAnswer, 'The text'), ...readErrors, 413: codeErrors[413], 415: codeErrors[415] },
  }),
  async (c) => {
    const { message_id, attachment_id } = c.req.valid('param');
    const meta = attachmentView(await c.var.graph.attachment(message_id, attachment_id));
    const kind = textKindOf(meta.contentType, meta.name);
    if (!kind)
      throw new HttpError(
        415,
        'unsupported_type',
        `No text can be read from ${meta.contentType} ("${meta.name}"): text, HTML and PDF attachments only.`,
      );
    if (meta.size > MAX_TEXT_ATTACHMENT_BYTES)
      throw new HttpError(
        413,
        'attachment_too_large',
        `The attachment is ${meta.size} bytes; text is read from attachments up to ${MAX_TEXT_ATTACHMENT_BYTES} bytes.`,
      );
    const bytes = new Uint8Array(await c.var.graph.attachmentBytes(message_id, attachment_id));
    let text: string;
    try {
      text = await extractText(kind, bytes);
    } catch (err) {
      if (err instanceof InflatedTooLarge)
        throw new HttpError(413, 'attachment_too_large', `The attachment "${meta.name}" is too large to read: ${err.message}.`);
      throw new HttpError(
        415,
        'unreadable_attachment',
        `The attachment "${meta.name}" could not be read as ${kind}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    const truncated = text.length > MAX_TEXT_CHARS;
    return c.json(
      {
        message_id,
        attachment_id,
        name: meta.name,
        contentType: meta.contentType,
        kind,
        text: truncated ? text.slice(0, MAX_TEXT_CHARS) : text,
        truncated,
      },
      200,
    );
  },
);

// ---- the change-notification subscription -------------------------------------------------

const SubscriptionSchema = z
  .object({ id: z.string(), resource: z.string(), changeType: z.string(), notificationUrl: z.string(), expiresAt: z.string() })
  .openapi('Subscription');

tools.openapi(
  createRoute({
    method: 'post',
    path: '/api/subscriptions',
    tags: ['Command line'],
    summary: 'Replaces the mailbox’s inbox subscription with a new one (the webhook is validated by Graph first)',
    security,
    middleware: writeGuards(1024),
    responses: { 201: json(SubscriptionSchema, 'The new subscription'), ...writeErrors },
  }),
  async (c) => {
    const status = await c.var.mailbox.status();
    const mail = status.account?.mail ?? '';
    const row = await resubscribe(c.env, c.var.config, c.var.user.id, mail, webhookUrl(c));
    return c.json(
      {
        id: row.id,
        resource: row.resource,
        changeType: row.changeType,
        notificationUrl: row.notificationUrl,
        expiresAt: new Date(row.expiresAt).toISOString(),
      },
      201,
    );
  },
);
