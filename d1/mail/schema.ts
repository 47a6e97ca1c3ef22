import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** Timestamps are Unix milliseconds. */

/**
 * Signed-in back-office users of the mail assistant. The cookie holds a random id; the row is
 * keyed by its SHA-256, and the authentication service's refresh token is kept sealed so that
 * logout can end the session there too.
 */
export const sessions = sqliteTable(
  'sessions',
  {
    idHash: text('id_hash').primaryKey(),
    userId: integer('user_id').notNull(),
    email: text('email').notNull(),
    name: text('name').notNull(),
    refreshTokenSealed: text('refresh_token_sealed').notNull(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    /** When the authentication service last confirmed the session (a refresh-token rotation). */
    checkedAt: integer('checked_at').notNull().default(0),
  },
  (t) => [index('sessions_expires').on(t.expiresAt)],
);

/**
 * Connected mailboxes, one per back-office user (the auth service's user id). The tokens live in
 * that user's MAILBOX Durable Object; this row lets the cron find every connected mailbox.
 */
export const mailboxes = sqliteTable('mailboxes', {
  userId: integer('user_id').primaryKey({ autoIncrement: false }),
  /** The mailbox's address as Graph's /me gave it. */
  mail: text('mail').notNull(),
  /** Where Graph delivers this mailbox's change notifications. */
  notificationUrl: text('notification_url').notNull(),
  connectedAt: integer('connected_at').notNull(),
});

/**
 * Graph change-notification subscriptions this service created. `clientStateHash` is the SHA-256
 * of the clientState Graph echoes in every notification (the value itself is not kept).
 */
export const subscriptions = sqliteTable(
  'subscriptions',
  {
    id: text('id').primaryKey(),
    /** The user whose mailbox the subscription watches (the MAILBOX object its notifications reach). */
    userId: integer('user_id').notNull().default(0),
    resource: text('resource').notNull(),
    changeType: text('change_type').notNull(),
    notificationUrl: text('notification_url').notNull(),
    clientStateHash: text('client_state_hash').notNull(),
    expiresAt: integer('expires_at').notNull(),
    createdAt: integer('created_at').notNull(),
    renewedAt: integer('renewed_at'),
  },
  (t) => [index('subscriptions_user').on(t.userId)],
);

// ---- the assistant (AI drafts, categories, prompts, summaries, traces) ---------------------
// Every row below belongs to one back-office user (`user_id`, the auth service's user id):
// nothing of one mailbox ever reaches another's prompts.

/** A user's categories: the plain-language rule the classifier reads, and what replies do. */
export const aiCategories = sqliteTable(
  'ai_categories',
  {
    userId: integer('user_id').notNull(),
    name: text('name').notNull(),
    /** The classification rule, in plain language. */
    rule: text('rule').notNull().default(''),
    /** `draft`: new mail of the category gets a reply draft; `no_reply`: never; `manual`: on demand. */
    replyMode: text('reply_mode').notNull().default('manual'),
    /** JSON array of the actions run on new mail of the category, in order (workers/mail/src/ai/rule-actions.ts). */
    actions: text('actions').notNull().default('[]'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.name] })],
);

/** Named prompts (`summarise`, `classify`, …, and `category:<name>` reply prompts) a user changed. */
export const aiPrompts = sqliteTable(
  'ai_prompts',
  {
    userId: integer('user_id').notNull(),
    name: text('name').notNull(),
    body: text('body').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.name] })],
);

/** The document store of e-mail summaries (one per message). */
export const aiSummaries = sqliteTable(
  'ai_summaries',
  {
    userId: integer('user_id').notNull(),
    messageId: text('message_id').notNull(),
    conversationId: text('conversation_id').notNull().default(''),
    subject: text('subject').notNull().default(''),
    sender: text('sender').notNull().default(''),
    /** JSON array of `{name, address}`. */
    recipients: text('recipients').notNull().default('[]'),
    /** `inbound` or `outbound` (sent by the mailbox's owner). */
    direction: text('direction').notNull().default('inbound'),
    category: text('category').notNull().default('unknown'),
    summary: text('summary').notNull().default(''),
    /** JSON array of strings. */
    bullets: text('bullets').notNull().default('[]'),
    pinned: integer('pinned').notNull().default(0),
    /** The category asks for replies and none was sent yet. */
    needsReply: integer('needs_reply').notNull().default(0),
    receivedAt: integer('received_at').notNull().default(0),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.messageId] }),
    index('ai_summaries_user_received').on(t.userId, t.receivedAt),
    index('ai_summaries_user_category').on(t.userId, t.category),
    index('ai_summaries_user_conversation').on(t.userId, t.conversationId),
  ],
);

/** The raw e-mails cache: what was summarised (the body as text, before cleaning). */
export const aiEmails = sqliteTable(
  'ai_emails',
  {
    userId: integer('user_id').notNull(),
    messageId: text('message_id').notNull(),
    subject: text('subject').notNull().default(''),
    sender: text('sender').notNull().default(''),
    bodyText: text('body_text').notNull().default(''),
    cleanText: text('clean_text').notNull().default(''),
    receivedAt: integer('received_at').notNull().default(0),
    cachedAt: integer('cached_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.messageId] }), index('ai_emails_user_cached').on(t.userId, t.cachedAt)],
);

/** Reply drafts made at the provider for an e-mail. */
export const aiDrafts = sqliteTable(
  'ai_drafts',
  {
    userId: integer('user_id').notNull(),
    emailId: text('email_id').notNull(),
    draftId: text('draft_id').notNull(),
    bodyHtml: text('body_html').notNull().default(''),
    category: text('category').notNull().default('unknown'),
    traceId: text('trace_id').notNull().default(''),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    sentAt: integer('sent_at'),
  },
  (t) => [primaryKey({ columns: [t.userId, t.emailId] }), index('ai_drafts_user_draft').on(t.userId, t.draftId)],
);

/** Rolling conversation summaries. */
export const aiThreadSummaries = sqliteTable(
  'ai_thread_summaries',
  {
    userId: integer('user_id').notNull(),
    threadId: text('thread_id').notNull(),
    summary: text('summary').notNull(),
    bullets: text('bullets').notNull().default('[]'),
    messageCount: integer('message_count').notNull().default(0),
    /** Message ids already folded into the summary (JSON array). */
    seen: text('seen').notNull().default('[]'),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.threadId] })],
);

/** One request's (or background job's) audit trail. */
export const aiTraces = sqliteTable(
  'ai_traces',
  {
    id: text('id').primaryKey(),
    userId: integer('user_id').notNull(),
    name: text('name').notNull(),
    outcome: text('outcome').notNull().default('ok'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('ai_traces_user_created').on(t.userId, t.createdAt)],
);

/** The ordered steps of a trace: every model call and Graph call. */
export const aiTraceSteps = sqliteTable(
  'ai_trace_steps',
  {
    traceId: text('trace_id').notNull(),
    seq: integer('seq').notNull(),
    /** `model` or `graph`. */
    kind: text('kind').notNull(),
    /** The prompt's name, or the Graph call (`GET /me/messages/{id}`). */
    name: text('name').notNull(),
    latencyMs: integer('latency_ms').notNull(),
    tokensIn: integer('tokens_in').notNull().default(0),
    tokensOut: integer('tokens_out').notNull().default(0),
    /** `ok`, `error`, `malformed`, `retried`, … */
    outcome: text('outcome').notNull(),
    detail: text('detail').notNull().default(''),
    at: integer('at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.traceId, t.seq] })],
);

/** Accounts allowed to use the assistant beyond MAIL_ASSISTANT_ADMINS (see the README). */
export const aiUsers = sqliteTable('ai_users', {
  email: text('email').primaryKey(),
  name: text('name').notNull().default(''),
  addedBy: text('added_by').notNull(),
  createdAt: integer('created_at').notNull(),
});

/** Background re-categorisation runs, with their progress. */
export const aiJobs = sqliteTable(
  'ai_jobs',
  {
    id: text('id').primaryKey(),
    userId: integer('user_id').notNull(),
    kind: text('kind').notNull(),
    /** `queued`, `running`, `done`, `failed`. */
    status: text('status').notNull(),
    total: integer('total').notNull().default(0),
    done: integer('done').notNull().default(0),
    changed: integer('changed').notNull().default(0),
    error: text('error'),
    createdAt: integer('created_at').notNull(),
    finishedAt: integer('finished_at'),
  },
  (t) => [index('ai_jobs_user_created').on(t.userId, t.createdAt)],
);

/**
 * The rule actions run on each message, one row per message and action index: an action whose
 * row says `ok` for the same action is never run again (a retry after throttling, a repeated
 * notification, "apply to existing mail" over mail new-mail processing handled already).
 */
export const aiRuleActions = sqliteTable(
  'ai_rule_actions',
  {
    userId: integer('user_id').notNull(),
    messageId: text('message_id').notNull(),
    actionIndex: integer('action_index').notNull(),
    /** The action as JSON (a changed action at the same index runs again). */
    action: text('action').notNull(),
    /** `running` (claimed), `ok`, `failed`. */
    status: text('status').notNull(),
    attempts: integer('attempts').notNull().default(0),
    detail: text('detail').notNull().default(''),
    traceId: text('trace_id').notNull().default(''),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.messageId, t.actionIndex] })],
);

// ---- replies tracked wherever they are sent, and senders cleared in bulk ----------------

/**
 * Messages the owner sent (seen in Sent Items, whatever sent them): each clears its
 * conversation's "needs reply" and waits for an answer (`awaiting`) until an inbound message of
 * the conversation arrives (`answered`) or the owner writes again (`superseded`). A follow-up
 * draft is made once when it has waited longer than the owner's setting.
 */
export const aiSentReplies = sqliteTable(
  'ai_sent_replies',
  {
    userId: integer('user_id').notNull(),
    messageId: text('message_id').notNull(),
    conversationId: text('conversation_id').notNull(),
    subject: text('subject').notNull().default(''),
    /** JSON array of `{name, address}`. */
    recipients: text('recipients').notNull().default('[]'),
    sentAt: integer('sent_at').notNull(),
    /** `awaiting`, `answered`, `superseded`. */
    status: text('status').notNull().default('awaiting'),
    answeredAt: integer('answered_at'),
    answerMessageId: text('answer_message_id'),
    /** When the follow-up draft was made, and its id at Graph. */
    followUpAt: integer('follow_up_at'),
    followUpDraftId: text('follow_up_draft_id'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.messageId] }),
    index('ai_sent_replies_conversation').on(t.userId, t.conversationId),
    index('ai_sent_replies_status').on(t.status, t.sentAt),
  ],
);

/** A person's settings of the reply tracking (one row once they change one). */
export const aiReplySettings = sqliteTable('ai_reply_settings', {
  userId: integer('user_id').primaryKey({ autoIncrement: false }),
  /** Days a sent message waits for an answer before a follow-up draft is made. */
  followUpDays: integer('follow_up_days').notNull().default(3),
  updatedAt: integer('updated_at').notNull(),
});

/** "Unsubscribe and archive" of one sender: what the unsubscribe did, and the archive job's progress. */
export const aiSenderJobs = sqliteTable(
  'ai_sender_jobs',
  {
    id: text('id').primaryKey(),
    userId: integer('user_id').notNull(),
    sender: text('sender').notNull(),
    /** `one_click`, `mailto`, `link`, `none`. */
    method: text('method').notNull(),
    /** `sent`, `failed`, `draft`, `shown`, `none`. */
    outcome: text('outcome').notNull(),
    /** The link shown, the draft's id, or why the one-click POST failed. */
    detail: text('detail').notNull().default(''),
    /** `queued`, `running`, `waiting` (throttled: resumes by itself), `done`, `failed`. */
    status: text('status').notNull(),
    archived: integer('archived').notNull().default(0),
    failed: integer('failed').notNull().default(0),
    /** Times Graph throttled the job and it resumed. */
    resumed: integer('resumed').notNull().default(0),
    error: text('error'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    finishedAt: integer('finished_at'),
  },
  (t) => [index('ai_sender_jobs_user_created').on(t.userId, t.createdAt)],
);
