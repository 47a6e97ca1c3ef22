import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/** Timestamps are Unix milliseconds. */
const now = sql`(cast(unixepoch('subsec') * 1000 as integer))`;

export const users = sqliteTable('users', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  /** Stored lower-cased; the login lookup lower-cases too. */
  email: text('email').notNull().unique(),
  firstName: text('first_name').notNull().default(''),
  lastName: text('last_name').notNull().default(''),
  /** Global vocabulary: admin, developer, user. */
  role: text('role', { enum: ['admin', 'developer', 'user'] })
    .notNull()
    .default('user'),
  isActive: integer('is_active', { mode: 'boolean' }).notNull().default(true),
  /** AES-256-GCM ciphertext of the base32 TOTP secret (`v1.<iv>.<ciphertext>`, base64url); null = not enrolled. */
  totpSecret: text('totp_secret'),
  enrolledAt: integer('enrolled_at'),
  createdAt: integer('created_at').notNull().default(now),
});

export const sites = sqliteTable('sites', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  /** Matched exactly (case-sensitive) against the login request's `site`. */
  siteName: text('site_name').notNull().unique(),
  siteUrl: text('site_url').notNull(),
  /** JSON array of the site's own role strings, or null for the global vocabulary. */
  roles: text('roles'),
  createdAt: integer('created_at').notNull().default(now),
});

/** A password per account and site; `site_id` null is the account's siteless credential. */
export const credentials = sqliteTable(
  'credentials',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    siteId: integer('site_id').references(() => sites.id, { onDelete: 'cascade' }),
    /** `scrypt$N$r$p$salt$hash` or an imported Django `pbkdf2_sha256$iter$salt$hash`. */
    passwordHash: text('password_hash').notNull(),
    /** The role on this site (one of the site's vocabulary); null = the account's global role. */
    siteRole: text('site_role'),
    updatedAt: integer('updated_at').notNull().default(now),
  },
  (t) => [
    uniqueIndex('credentials_user_site').on(t.userId, t.siteId).where(sql`${t.siteId} is not null`),
    uniqueIndex('credentials_user_siteless').on(t.userId).where(sql`${t.siteId} is null`),
  ],
);

/** One family per successful verify; every refresh moves `generation` on by one (rotation). */
export const refreshFamilies = sqliteTable(
  'refresh_families',
  {
    id: text('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    siteId: integer('site_id').references(() => sites.id, { onDelete: 'set null' }),
    /** The generation of the one refresh token of this family that is still current. */
    generation: integer('generation').notNull().default(0),
    expiresAt: integer('expires_at').notNull(),
    createdAt: integer('created_at').notNull().default(now),
    lastRefreshedAt: integer('last_refreshed_at'),
    revokedAt: integer('revoked_at'),
    /** logout | reuse_detected */
    revokedReason: text('revoked_reason'),
  },
  (t) => [
    index('refresh_families_user').on(t.userId),
    // The retention job deletes families past their expiry in batches.
    index('refresh_families_expires').on(t.expiresAt),
  ],
);

export const backupCodes = sqliteTable(
  'backup_codes',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** SHA-256 (hex) of the normalised code. */
    codeHash: text('code_hash').notNull(),
    usedAt: integer('used_at'),
  },
  (t) => [uniqueIndex('backup_codes_user_code').on(t.userId, t.codeHash)],
);

/** TOTP time steps already accepted per account: a code is good once, even inside its window. */
export const totpUsedSteps = sqliteTable(
  'totp_used_steps',
  {
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    step: integer('step').notNull(),
    usedAt: integer('used_at').notNull().default(now),
  },
  (t) => [
    uniqueIndex('totp_used_steps_user_step').on(t.userId, t.step),
    // The retention job deletes steps older than the replay window in batches.
    index('totp_used_steps_step').on(t.step),
  ],
);

export const auditLog = sqliteTable(
  'audit_log',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    at: integer('at').notNull().default(now),
    /** login_success, login_failure, verify_failure, lockout, refresh, reuse_detected, revoke, enrolment, site_created, … */
    event: text('event').notNull(),
    userId: integer('user_id'),
    email: text('email'),
    siteName: text('site_name'),
    ip: text('ip'),
    detail: text('detail'),
  },
  (t) => [index('audit_log_at').on(t.at), index('audit_log_user').on(t.userId)],
);
