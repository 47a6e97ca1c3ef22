import { createMailApp } from './app';
import { mailConfig } from './config';
import { renewSubscriptions } from './subscriptions';

export { AccountGuard } from '../../../durable-objects/account-guard';
export { MailUserContext } from '../../../durable-objects/mail-user-context';

const app = createMailApp();

export default {
  fetch: app.fetch,
  /** The cron: renews the webhook subscriptions, the trigger's scheduled time being "now". */
  async scheduled(controller, env, ctx) {
    const report = await renewSubscriptions(env, mailConfig(env), controller.scheduledTime);
    console.log(JSON.stringify({ level: 'info', service: 'mail', event: 'subscriptions_renewed', cron: controller.cron, ...report }));
    if (report.failed.length) throw new Error(`${report.failed.length} subscription(s) could not be renewed`);
    void ctx;
  },
} satisfies ExportedHandler<Env>;
