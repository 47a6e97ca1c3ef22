import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

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
