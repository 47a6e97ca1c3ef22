import { auditLog } from '#d1/auth/schema.ts';
import type { AuthDb } from './context.ts';

export type AuditEvent =
  | 'login_success'
  | 'login_failure'
  | 'login_not_enrolled'
  | 'verify_failure'
  | 'lockout'
  | 'refresh'
  | 'reuse_detected'
  | 'revoke'
  | 'account_created'
  | 'enrolment'
  | 'account_deactivated'
  | 'account_activated'
  | 'site_created'
  | 'site_updated'
  | 'site_deleted'
  | 'dashboard_login';

export interface AuditEntry {
  userId?: number | null;
  email?: string | null;
  siteName?: string | null;
  ip?: string | null;
  detail?: string | null;
}

export async function audit(db: AuthDb, event: AuditEvent, entry: AuditEntry): Promise<void> {
  await db.insert(auditLog).values({ event, ...entry, at: Date.now() });
}
