// Bindings the mail tests add to the Worker's own (see vitest.config.ts beside this file).
declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import('cloudflare:test').D1Migration[];
    TEST_ACCOUNTS: string;
    TEST_BACKUP_CODES: string;
    GRAPH_STANDIN: string;
  }
}
