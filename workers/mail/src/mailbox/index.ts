// The mailbox module's public entry: what the mailbox's Durable Object (durable-objects/mail-user-context.ts)
// hosts. The object keeps the storage, the alarm and the RPC surface; the work is done here.

export { type MailConfig, mailConfig } from '../config.ts';
export { SharedReads } from '../graph/reads.ts';
export { type GraphRequest, type GraphResult, Semaphore, sendGraph } from '../graph/transport.ts';
export type { TokenSet } from '../oauth.ts';
export { MAX_BACKGROUND_GRAPH_REQUESTS, MAX_CONCURRENT_GRAPH_REQUESTS, lookUpWellKnownFolders } from './gateway.ts';
export type { MailboxNotification } from './notifications.ts';
export type { QueueState } from './queue.ts';
export { ReadActivity } from './read-activity.ts';
export {
  type MailboxAccount,
  type MailboxStatus,
  type StoredConnection,
  accessStillValid,
  newConnection,
  refreshedConnection,
  statusOf,
} from './tokens.ts';
export { type MailboxHost, MailboxWork } from './work.ts';
