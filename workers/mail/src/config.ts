import { z } from 'zod';
import { commaListSetting, parseConfig } from '#shared/config.ts';
import { isLoopbackHost } from '#shared/local-development.ts';

const baseUrl = z
  .string()
  .url()
  .transform((url) => url.replace(/\/+$/, ''));
const count = (min: number, max: number, fallback: number) => z.coerce.number().int().min(min).max(max).default(fallback);

/** The mail Worker's config: vars from wrangler.toml, secrets via `wrangler secret put`. */
export const mailConfigSchema = z.object({
  AUTH_CLIENT_SECRET: z.string().min(8, 'must be at least 8 characters'),
  /** Session cookies, CSRF tokens and the login form token. */
  SESSION_SECRET: z.string().min(32, 'must be at least 32 characters'),
  /** Seals the mailbox's refresh token and the OAuth state cookie. */
  MAIL_TOKEN_SECRET: z.string().min(32, 'must be at least 32 characters'),
  MS_CLIENT_ID: z.string().min(1),
  MS_CLIENT_SECRET: z.string().optional(),
  MS_TENANT: z
    .string()
    .regex(/^[A-Za-z0-9.-]{1,100}$/, 'must be a tenant id or name')
    .default('common'),
  MS_SCOPES: z.string().min(1).default('offline_access User.Read Mail.ReadWrite Mail.Send People.Read MailboxSettings.ReadWrite'),
  IDENTITY_BASE_URL: baseUrl,
  GRAPH_BASE_URL: baseUrl,
  MAIL_PUBLIC_URL: z.union([z.literal(''), baseUrl]).default(''),
  MAIL_AUTH_SITE: z.string().default(''),
  SESSION_MAX_AGE_SECONDS: count(60, 30 * 86_400, 28_800),
  /** How often a session is confirmed with the authentication service (a refresh-token rotation). */
  SESSION_RECHECK_SECONDS: count(1, 86_400, 300),
  GRAPH_TIMEOUT_MS: count(100, 60_000, 10_000),
  GRAPH_DEADLINE_MS: count(200, 120_000, 25_000),
  GRAPH_MAX_RETRIES: count(0, 10, 3),
  GRAPH_MAX_RETRY_AFTER_SECONDS: count(0, 120, 10),
  /** Reads of one mailbox that may wait for its four Graph slots; one more is answered 503 with Retry-After. */
  GRAPH_MAX_WAITING_READS: count(1, 1000, 32),
  /** How old a cached answer of the mailbox's reads (lists, folders, messages) may be; 0: none is cached. */
  GRAPH_READ_CACHE_MS: count(0, 30_000, 2_000),
  SUBSCRIPTION_MINUTES: count(45, 10_080, 4_320),
  SUBSCRIPTION_RENEW_BEFORE_MINUTES: count(1, 10_000, 1_440),
  MAIL_DEV_AUTO_CONNECT: z
    .enum(['true', 'false', ''])
    .default('false')
    .transform((v) => v === 'true'),
  /** The language model: `workers-ai` (the AI binding, the deployed default), `openai` (any OpenAI-compatible endpoint) or `offline` (templates and keywords, no network). */
  MAIL_MODEL: z.enum(['offline', 'workers-ai', 'openai']).default('workers-ai'),
  /** Workers AI model id (with MAIL_MODEL=workers-ai). */
  WORKERS_AI_MODEL: z.string().min(1).max(200).default('@cf/meta/llama-3.1-8b-instruct'),
  /** OpenAI-compatible endpoint (with MAIL_MODEL=openai): base URL (…/v1), model name, key (a secret). */
  OPENAI_BASE_URL: z.union([z.literal(''), baseUrl]).default(''),
  OPENAI_MODEL: z.string().max(200).default(''),
  OPENAI_API_KEY: z.string().optional(),
  /** One model call may take this long (then it is retried once for structured answers, or reported). */
  MODEL_TIMEOUT_MS: count(100, 120_000, 20_000),
  /** Most tokens a model answer may have. */
  MODEL_MAX_TOKENS: count(16, 8192, 600),
  /** Traces, finished re-categorisation jobs and processed new-mail records older than this are deleted (the cron, the mailbox object's alarm). */
  ASSISTANT_HISTORY_DAYS: count(1, 3650, 30),
  /**
   * Where a one-click unsubscribe may POST (src/unsubscribe.ts): `*` = any public host name on 443
   * outside this service's zone; `host` or `host:port` entries; plain http only to a listed loopback host.
   */
  UNSUBSCRIBE_ALLOWED_HOSTS: commaListSetting('*', (entry) => entry.toLowerCase()),
  /** Accounts (e-mail addresses, comma-separated) that may always use the assistant and manage its users. */
  MAIL_ASSISTANT_ADMINS: z.string().max(4000).default(''),
});

export type MailConfig = z.output<typeof mailConfigSchema>;

export const mailConfig = (env: unknown): MailConfig => parseConfig(mailConfigSchema, env);

/** What the Graph transport (inside the mailbox Durable Object) needs of the config. */
export type GraphSettings = Pick<
  MailConfig,
  | 'GRAPH_BASE_URL'
  | 'GRAPH_TIMEOUT_MS'
  | 'GRAPH_DEADLINE_MS'
  | 'GRAPH_MAX_RETRIES'
  | 'GRAPH_MAX_RETRY_AFTER_SECONDS'
  | 'GRAPH_MAX_WAITING_READS'
>;

/** True for http(s) addresses on this machine: the stand-in, never Microsoft. */
export const isLoopback = (url: string): boolean => isLoopbackHost(new URL(url).hostname);
