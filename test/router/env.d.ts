// The stand-in services bound in vitest.config.ts beside this file.
declare namespace Cloudflare {
  interface Env {
    STATS: Fetcher;
    AUTH: Fetcher;
  }
}
