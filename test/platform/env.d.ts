// Bindings the platform tests receive from the global setup (see vitest.config.ts beside this file).
declare namespace Cloudflare {
  interface Env {
    DATABASE_URL: string;
    PG_WS_PROXY: string;
    RACING_TODAY: string;
    SILENT_PORT: string;
  }
}
