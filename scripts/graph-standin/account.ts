import type { Mailbox } from './mailbox.ts';

/** What a handler answers; the server writes it out. */
export type Reply = {
  status: number;
  headers?: Record<string, string>;
  json?: unknown;
  text?: string;
  bytes?: Buffer;
  contentType?: string;
};

/** An injected fault: the next `count` matching requests answer `status` (0 drops the connection), after `delayMs`. */
export type Fault = {
  id: number;
  status: number | null;
  remaining: number | null;
  retryAfter: number | null;
  pathPrefix: string | null;
  method: string | null;
  delayMs: number;
  hits: number;
};

export type LoggedRequest = {
  time: string;
  method: string;
  path: string;
  query: string;
  status: number;
  durationMs: number;
  token: string | null;
  fault: number | null;
};

export type Delivery = {
  time: string;
  kind: 'validation' | 'notification';
  subscriptionId: string | null;
  url: string;
  status: number | null;
  durationMs: number;
  ok: boolean;
  slow: boolean;
  error: string | null;
  /** for notifications: the change types and message ids in the payload */
  changes?: { changeType: string; id: string }[];
};

/** A webhook call held for a test to carry out itself (delivery mode "queue"). */
export type OutboxItem = {
  id: string;
  kind: 'validation' | 'notification';
  url: string;
  method: 'POST';
  headers: Record<string, string>;
  body: string;
  enqueuedAt: number;
  resolve(answer: { status: number; contentType: string; body: string }): void;
};

export type Subscription = {
  id: string;
  resource: string;
  /** the folder it watches, or null for the whole mailbox (`me/messages`) */
  folderId: string | null;
  changeTypes: ('created' | 'updated' | 'deleted')[];
  notificationUrl: string;
  lifecycleNotificationUrl: string | null;
  expirationDateTime: string;
  clientState: string | null;
  clientId: string;
  immutableIds: boolean;
  latestSupportedTlsVersion: string;
};

export const DEFAULT_ACCESS_TOKEN_LIFETIME = 3599;
export const DEFAULT_MAX_CONCURRENT = 4;

/** One mailbox with everything the stand-in keeps about it: faults, logs, subscriptions, settings. */
export type Account = {
  key: string;
  mailbox: Mailbox;
  seed: 'racing' | 'empty';
  faults: Fault[];
  log: LoggedRequest[];
  deliveries: Delivery[];
  subscriptions: Map<string, Subscription>;
  outbox: OutboxItem[];
  outboxWaiters: Set<() => void>;
  webhookMode: 'http' | 'queue';
  accessTokenLifetime: number;
  refreshTokenReuse: 'reject' | 'allow';
  maxConcurrent: number;
  authorizeError: { error: string; description: string } | null;
  inFlight: {
    current: number;
    highWater: number;
    byToken: Map<string, { current: number; highWater: number }>;
    byClient: Map<string, number>;
  };
  refreshGrants: number;
  detachMailbox: () => void;
};

export const LOG_LIMIT = 5000;
