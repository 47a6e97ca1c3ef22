import { servedUnder } from '#shared/base-path.ts';
import { drizzle } from 'drizzle-orm/d1';
import * as schema from '#d1/auth/schema.ts';
import { createAuthApp } from './app.ts';
import { retentionConfig } from './config.ts';
import { runRetention } from './retention.ts';

export { AccountGuard } from '#durable-objects/account-guard.ts';
export { LiveSession } from '#durable-objects/live-session.ts';
export { PendingLogin } from '#durable-objects/pending-login.ts';

const app = createAuthApp();

export default {
  fetch: servedUnder('/auth', app.fetch),
  /**
   * The Cron Trigger in wrangler.toml: deletes expired and old rows, one JSON log line per run.
   * The work is awaited here rather than passed to the context's waitUntil, so a failure marks
   * the run as failed.
   */
  async scheduled(controller, env, _ctx) {
    const started = performance.now();
    try {
      const config = retentionConfig(env);
      const result = await runRetention(drizzle(env.DB, { schema }), config, Date.now());
      console.log(
        JSON.stringify({
          level: 'info',
          service: 'auth',
          job: 'retention',
          cron: controller.cron,
          audit_retention_days: config.AUTH_AUDIT_RETENTION_DAYS,
          ...result,
          ms: Math.round((performance.now() - started) * 10) / 10,
        }),
      );
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      console.error(JSON.stringify({ level: 'error', service: 'auth', job: 'retention', cron: controller.cron, error }));
      // Rethrown so the Cron Trigger's run is recorded as failed.
      throw err;
    }
  },
} satisfies ExportedHandler<Env>;
