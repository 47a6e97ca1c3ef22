/** A change notification for this mailbox, as the webhook accepted it. */
export interface MailboxNotification {
  subscriptionId: string;
  changeType: string;
  resource: string;
  messageId: string | null;
  receivedAt: number;
  /** Set for the Sent Items subscription's notifications (the owner sent a message). */
  folder?: 'sentitems';
}

/** Whether a notification announces a new message the assistant processes (created, with its id). */
export const announcesNewMessage = (item: MailboxNotification): item is MailboxNotification & { messageId: string } =>
  item.changeType.split(',').includes('created') && !!item.messageId;

/** Notifications kept per mailbox (the newest). */
export const MAX_KEPT_NOTIFICATIONS = 1000;

type NotificationRow = { subscription_id: string; change_type: string; resource: string; message_id: string | null; received_at: number };

/** The mailbox's newest notifications, in its object's SQLite storage (table `notifications`). */
export class NotificationLog {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(
      `CREATE TABLE IF NOT EXISTS notifications (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        subscription_id TEXT NOT NULL,
        change_type TEXT NOT NULL,
        resource TEXT NOT NULL,
        message_id TEXT,
        received_at INTEGER NOT NULL
      )`,
    );
  }

  record(items: MailboxNotification[]): void {
    for (const item of items) {
      this.sql.exec(
        'INSERT INTO notifications (subscription_id, change_type, resource, message_id, received_at) VALUES (?, ?, ?, ?, ?)',
        item.subscriptionId,
        item.changeType,
        item.resource,
        item.messageId,
        item.receivedAt,
      );
    }
  }

  /** Drops all but the newest MAX_KEPT_NOTIFICATIONS. */
  trim(): void {
    this.sql.exec('DELETE FROM notifications WHERE id <= (SELECT MAX(id) FROM notifications) - ?', MAX_KEPT_NOTIFICATIONS);
  }

  clear(): void {
    this.sql.exec('DELETE FROM notifications');
  }

  /** The newest `limit` (1 to MAX_KEPT_NOTIFICATIONS), oldest first. */
  newest(limit: number): MailboxNotification[] {
    const rows = this.sql
      .exec<NotificationRow>(
        'SELECT subscription_id, change_type, resource, message_id, received_at FROM notifications ORDER BY id DESC LIMIT ?',
        Math.max(1, Math.min(limit, MAX_KEPT_NOTIFICATIONS)),
      )
      .toArray();
    return rows.reverse().map((r) => ({
      subscriptionId: r.subscription_id,
      changeType: r.change_type,
      resource: r.resource,
      messageId: r.message_id,
      receivedAt: r.received_at,
    }));
  }
}
