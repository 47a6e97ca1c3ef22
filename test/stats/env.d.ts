// Bindings the stats tests receive on top of the Worker's own (see vitest.config.ts beside this file).
declare namespace Cloudflare {
  interface Env {
    RACING_TODAY: string;
    FAKE_EXTERNAL_URL: string;
    PG_WS_PROXY: string;
    EXTERNAL_API_KEY: string;
    SILENT_PORT: string;
  }
}
