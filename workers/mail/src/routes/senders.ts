import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { HttpError } from '#shared/http-error.ts';
import type { MailContext, MailEnv } from '../context.ts';
import { latestSenderJobs, senderJob } from '../data/senders.ts';
import { assistant, csrf, pageMailbox, pageSession } from '../guards.ts';
import { rankSenders, senderJobView, unsubscribeAndArchive } from '../senders.ts';
import { sendersPage } from '../views/senders.tsx';
import { jsonBody, security } from './api-common.ts';
import { aiErrors, ok, readErrors, readMail, writeMail } from './assistant-common.ts';
import { formFields, formLimit } from './settings-form.ts';

/**
 * Senders in bulk: the ranking (by volume, or by how little of their mail is read) and, per
 * sender, one action that unsubscribes (src/unsubscribe.ts) and archives their Inbox mail as a
 * job with progress. Nothing is unsubscribed without the person's click: a POST with the
 * session's anti-forgery token, from the page's form or the JSON route.
 */
export const sendersApi = new OpenAPIHono<MailEnv>();

const Sender = z.string().trim().toLowerCase().pipe(z.email().max(320));
const Sort = z.enum(['volume', 'read']).default('volume');

const SenderRankSchema = z
  .object({
    address: z.string(),
    name: z.string(),
    messages: z.number().int(),
    unread: z.number().int(),
    read_share: z.number().openapi({ description: 'Share of their messages read, 0–1' }),
    newest: z.string().nullable(),
  })
  .openapi('SenderRank');
const SenderJobSchema = z
  .object({
    job_id: z.string(),
    sender: z.string(),
    method: z.string().openapi({ description: 'How the mail lets its sender be left: one_click, mailto, link or none' }),
    outcome: z.string().openapi({
      description: 'sent: the one-click POST was accepted; draft: a mailto: draft in Drafts (never sent); shown: the link is yours to open',
    }),
    detail: z.string().openapi({ description: 'The link, the draft id, or why the POST failed' }),
    status: z.string().openapi({ description: 'queued, running, waiting (throttled: resumes by itself), done, failed' }),
    archived: z.number().int(),
    failed: z.number().int(),
    resumed: z.number().int().openapi({ description: 'Times Graph throttled the archive and it resumed' }),
    error: z.string().nullable(),
    created_at: z.string(),
    finished_at: z.string().nullable(),
  })
  .openapi('SenderJob');

sendersApi.openapi(
  createRoute({
    method: 'get',
    path: '/api/senders',
    tags: ['Senders'],
    summary: `Senders of the newest Inbox mail (up to 1000 messages), by volume or by how little of their mail is read`,
    security,
    middleware: readMail,
    request: { query: z.object({ sort: Sort, limit: z.coerce.number().int().min(1).max(200).default(50) }) },
    responses: { 200: ok(z.object({ items: z.array(SenderRankSchema), scanned: z.number().int() })), ...aiErrors },
  }),
  async (c) => {
    const { sort, limit } = c.req.valid('query');
    return c.json(await rankSenders(c, sort, limit), 200);
  },
);

sendersApi.openapi(
  createRoute({
    method: 'post',
    path: '/api/senders/unsubscribe',
    tags: ['Senders'],
    summary: 'Unsubscribes from a sender (one-click POST, else a mailto: draft, else the link) and archives their Inbox mail as a job',
    security,
    middleware: writeMail(4096),
    request: jsonBody(z.object({ sender: Sender })),
    responses: { 202: ok(SenderJobSchema, 'The unsubscribe done and the archive job started'), ...aiErrors },
  }),
  async (c) => {
    const { sender } = c.req.valid('json');
    return c.json(senderJobView(await unsubscribeAndArchive(c, sender)), 202);
  },
);

sendersApi.openapi(
  createRoute({
    method: 'get',
    path: '/api/senders/jobs/{job_id}',
    tags: ['Senders'],
    summary: 'An unsubscribe-and-archive job: what the unsubscribe did, and the archive’s progress',
    security,
    middleware: readMail,
    request: { params: z.object({ job_id: z.uuid() }) },
    responses: { 200: ok(SenderJobSchema), ...readErrors },
  }),
  async (c) => {
    const job = await senderJob(c.var.db, c.var.user.id, c.req.valid('param').job_id);
    if (!job) throw new HttpError(404, 'not_found', 'No such job of yours.');
    return c.json(senderJobView(job), 200);
  },
);

// ---- the page ---------------------------------------------------------------------------

async function renderSenders(c: MailContext, options: { sort: 'volume' | 'read'; error?: string; status?: 200 | 400 }) {
  const [ranking, jobs] = await Promise.all([rankSenders(c, options.sort, 50), latestSenderJobs(c.var.db, c.var.user.id, 10)]);
  return c.html(
    sendersPage({
      user: c.var.user,
      csrfToken: c.var.csrfToken,
      sort: options.sort,
      senders: ranking.items,
      scanned: ranking.scanned,
      jobs: jobs.map(senderJobView),
      error: options.error,
    }),
    options.status ?? 200,
  );
}

sendersApi.get('/senders', pageSession, assistant, pageMailbox, async (c) => {
  const sort = Sort.safeParse(c.req.query('sort') ?? undefined);
  return renderSenders(c, { sort: sort.success ? sort.data : 'volume' });
});

sendersApi.post('/senders/unsubscribe', pageSession, formLimit, csrf, assistant, pageMailbox, async (c) => {
  const values = await formFields(c);
  const sender = Sender.safeParse(values.sender ?? '');
  const sort = values.sort === 'read' ? 'read' : 'volume';
  if (!sender.success || (values.sender ?? '').includes('\u0000'))
    return renderSenders(c, { sort, error: 'Choose a sender from the list (an e-mail address).', status: 400 });
  const job = await unsubscribeAndArchive(c, sender.data);
  return c.redirect(`/senders?sort=${sort}&job=${encodeURIComponent(job.id)}`, 303);
});
