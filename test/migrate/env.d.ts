// Bindings the migrate tests add to the Worker's own (see vitest.config.ts beside this file).
declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import('cloudflare:test').D1Migration[];
    TEST_ACCOUNTS: string;
    TEST_BACKUP_CODES: string;
    TEST_LEGACY_DATABASE_URL: string;
    /** A real PostgreSQL database for the COPY path ('' when there is none). */
    TEST_REAL_POSTGRES_URL: string;
    MIGRATE_DIRECT_COPY: string;
    PG_WS_PROXY: string;
    /** POST `{email, role}` (role null removes it): the account's role on the migrate site at the auth service. */
    AUTH_SITE_ROLE: Fetcher;
  }
}
