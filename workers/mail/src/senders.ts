import type { Message } from '@microsoft/microsoft-graph-types';
import type { MailContext } from './context.ts';
import { type SenderJob, createSenderJob } from './data/senders.ts';
import { findOffer, mailtoDraft, oneClick, unsubscribeTargetAllowed } from './unsubscribe.ts';

/** The Senders page's work: senders ranked from the Inbox, and "unsubscribe and archive" (one click each). */

/** Inbox messages looked at for the ranking (the newest). */
export const SCANNED = 1000;

export interface SenderRank {
  address: string;
  name: string;
  messages: number;
  unread: number;
  /** Share of their messages read, 0–1. */
  read_share: number;
  newest: string | null;
}

/** Senders of the newest Inbox mail, by volume (most first) or by how little of it is read (least read first). */
export async function rankSenders(c: MailContext, sort: 'volume' | 'read', limit: number) {
  const messages = await c.var.graph.all<Message>(
    `/me/mailFolders/inbox/messages?$select=from,isRead,receivedDateTime&$orderby=receivedDateTime%20desc&$top=100`,
    SCANNED,
  );
  const by = new Map<string, SenderRank>();
  for (const m of messages) {
    const address = m.from?.emailAddress?.address?.toLowerCase();
    if (!address) continue;
    const row = by.get(address) ?? { address, name: m.from?.emailAddress?.name ?? '', messages: 0, unread: 0, read_share: 0, newest: null };
    row.messages += 1;
    if (!m.isRead) row.unread += 1;
    if (m.receivedDateTime && (!row.newest || m.receivedDateTime > row.newest)) row.newest = m.receivedDateTime;
    by.set(address, row);
  }
  const rows = [...by.values()].map((r) => ({ ...r, read_share: Math.round(((r.messages - r.unread) / r.messages) * 100) / 100 }));
  rows.sort((a, b) =>
    sort === 'volume'
      ? b.messages - a.messages || a.read_share - b.read_share || a.address.localeCompare(b.address)
      : a.read_share - b.read_share || b.messages - a.messages || a.address.localeCompare(b.address),
  );
  return { items: rows.slice(0, limit), scanned: messages.length };
}

/**
 * The person's click on one sender: the unsubscribe their newest mail offers (src/unsubscribe.ts),
 * then the archive of their Inbox mail as a job of the mailbox object. Answers the job row.
 */
export async function unsubscribeAndArchive(c: MailContext, sender: string): Promise<SenderJob> {
  const graph = c.var.graph;
  const offer = await findOffer(graph, sender);
  let outcome = 'none';
  let detail = '';
  let method: string = offer?.method ?? 'none';
  if (offer?.method === 'one_click') {
    const own = new URL(c.var.config.MAIL_PUBLIC_URL || c.req.url).hostname;
    if (unsubscribeTargetAllowed(offer.uri, c.var.config.UNSUBSCRIBE_ALLOWED_HOSTS, own)) {
      const result = await oneClick(offer.uri);
      outcome = result.ok ? 'sent' : 'failed';
      detail = result.ok ? offer.uri : `${result.detail}: ${offer.uri}`;
    } else {
      // a host not allowed: nothing is sent; the link is the person's to open
      method = 'link';
      outcome = 'shown';
      detail = offer.uri;
    }
  } else if (offer?.method === 'mailto') {
    const draftId = await mailtoDraft(graph, offer.uri);
    outcome = draftId ? 'draft' : 'none';
    detail = draftId ?? '';
  } else if (offer?.method === 'link') {
    outcome = 'shown';
    detail = offer.uri;
  }
  const job = await createSenderJob(c.var.db, c.var.user.id, { sender, method, outcome, detail });
  await c.var.mailbox.startSenderJob(c.var.user.id, job.id, sender);
  return job;
}

/** A job as the routes answer it. */
export function senderJobView(job: SenderJob) {
  return {
    job_id: job.id,
    sender: job.sender,
    method: job.method,
    outcome: job.outcome,
    detail: job.detail,
    status: job.status,
    archived: job.archived,
    failed: job.failed,
    resumed: job.resumed,
    error: job.error,
    created_at: new Date(job.createdAt).toISOString(),
    finished_at: job.finishedAt ? new Date(job.finishedAt).toISOString() : null,
  };
}
export type SenderJobView = ReturnType<typeof senderJobView>;
