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
  },
  (t) => [index('sessions_expires').on(t.expiresAt)],
);

/**
 * Graph change-notification subscriptions this service created. `clientStateHash` is the SHA-256
 * of the clientState Graph echoes in every notification (the value itself is not kept).
 */
export const subscriptions = sqliteTable('subscriptions', {
  id: text('id').primaryKey(),
  resource: text('resource').notNull(),
  changeType: text('change_type').notNull(),
  notificationUrl: text('notification_url').notNull(),
  clientStateHash: text('client_state_hash').notNull(),
  expiresAt: integer('expires_at').notNull(),
  createdAt: integer('created_at').notNull(),
  renewedAt: integer('renewed_at'),
});

/** Change notifications accepted by the webhook, recorded after it answered. */
export const notifications = sqliteTable(
  'notifications',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    subscriptionId: text('subscription_id').notNull(),
    changeType: text('change_type').notNull(),
    resource: text('resource').notNull(),
    messageId: text('message_id'),
    receivedAt: integer('received_at').notNull(),
  },
  (t) => [index('notifications_received').on(t.receivedAt)],
);
