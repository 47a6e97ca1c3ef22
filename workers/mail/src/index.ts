import { servedUnder } from '#shared/base-path.ts';
import { createMailApp } from './app.ts';
import { makeFollowUps } from './ai/replies.ts';
import { pruneAssistantHistory } from './ai/retention.ts';
import { mailConfig } from './config.ts';
import { renewSubscriptions } from './subscriptions.ts';

export { AccountGuard } from '#durable-objects/account-guard.ts';
export { MailUserContext } from '#durable-objects/mail-user-context.ts';

const app = createMailApp();

export default {
  fetch: servedUnder('/mail', app.fetch, { assetsFirst: true }),
  /**
   * The cron: renews the webhook subscriptions, the trigger's scheduled time being "now", and
   * deletes the assistant's history older than ASSISTANT_HISTORY_DAYS.
   */
  async scheduled(controller, env, ctx) {
    const config = mailConfig(env);
    const report = await renewSubscriptions(env, config, controller.scheduledTime);
    console.log(JSON.stringify({ level: 'info', service: 'mail', event: 'subscriptions_renewed', cron: controller.cron, ...report }));
    // sent messages waiting past their owner's setting get a follow-up draft (ai/replies.ts)
    const followUps = await makeFollowUps(env, config.GRAPH_BASE_URL, controller.scheduledTime);
    console.log(JSON.stringify({ level: 'info', service: 'mail', event: 'follow_ups', ...followUps }));
    const pruned = await pruneAssistantHistory(env.DB, controller.scheduledTime, config.ASSISTANT_HISTORY_DAYS);
    console.log(JSON.stringify({ level: 'info', service: 'mail', event: 'assistant_history_pruned', ...pruned }));
    if (report.failed.length) throw new Error(`${report.failed.length} subscription(s) could not be renewed`);
    void ctx;
  },
} satisfies ExportedHandler<Env>;
