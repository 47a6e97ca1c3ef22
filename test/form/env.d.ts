// Bindings the form tests receive beyond the Worker's own (see vitest.config.ts beside this file).
declare namespace Cloudflare {
  interface Env {
    PG_WS_PROXY: string;
    RACING_TODAY: string;
  }
}
