import { BENCH_MAIL_OWNER as OWNER, withBenchMail } from './mail-worker.ts';

type Dashboard = {
  new_mail_queue: { queued: number; done: number; failed: number; avg_ms: number; avg_model_ms: number };
  drafts: { made: number };
};

/**
 * Inbox Zero end to end with the offline model: new mail delivered at the stand-in → its change
 * notifications → the mail Worker's webhook → the user's mailbox object's queue → per message
 * the Graph read, summary, category and reply draft (created at the stand-in). Reports messages
 * per second and the Worker's own time per message apart from the model's.
 */
export async function benchMailAi({ runs }: { runs: number }) {
  const count = Math.max(20, Math.min(runs, 200));
  await withBenchMail({ MAIL_MODEL: 'offline', MAIL_ASSISTANT_ADMINS: OWNER }, async ({ base, cookie, standin }) => {
    const page = await fetch(`${base}/outlook`, { headers: { cookie } });
    const csrf = /name="csrf-token" content="([^"]+)"/.exec(await page.text())?.[1];
    if (!csrf) throw new Error('no anti-forgery token on /outlook');
    // The first token-gated request connects the stand-in's mailbox and subscribes the webhook.
    const folders = await fetch(`${base}/api/folders`, { headers: { cookie } });
    if (folders.status !== 200) throw new Error(`/api/folders: ${folders.status} ${await folders.text()}`);
    const created = await fetch(`${base}/api/admin/categories`, {
      method: 'POST',
      headers: { cookie, 'x-csrf-token': csrf, origin: base, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Entries', rule: 'nomination entries race horse trainer', reply_mode: 'draft' }),
    });
    if (created.status !== 201) throw new Error(`category: ${created.status} ${await created.text()}`);
    const dashboard = async () => (await (await fetch(`${base}/api/dashboard`, { headers: { cookie } })).json()) as Dashboard;

    const started = performance.now();
    const delivered = await fetch(`${standin.url}/_standin/deliver`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        count,
        subject: 'Nomination for race 4',
        body: 'Please enter our horse in race 4 on Saturday. The trainer confirms the nomination.\n\nThanks,\nSam\nSent from my iPhone',
        from: { name: 'Sam Trainer', address: 'sam@stables.test' },
      }),
    });
    if (delivered.status !== 201) throw new Error(`deliver: ${delivered.status}`);
    let d = await dashboard();
    const deadline = Date.now() + 300_000;
    while (d.new_mail_queue.done + d.new_mail_queue.failed < count && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      d = await dashboard();
    }
    const seconds = (performance.now() - started) / 1000;
    const q = d.new_mail_queue;
    console.log(`\nMail assistant: Inbox Zero end to end (offline model; ${count} new messages delivered at once)`);
    console.log(
      `processed ${q.done} (failed ${q.failed}, drafts made ${d.drafts.made}) in ${seconds.toFixed(1)} s: ${(q.done / seconds).toFixed(1)} notifications/s (webhook → summary → category → draft)`,
    );
    console.log(
      `per message: ${q.avg_ms} ms in all, of which the model ${q.avg_model_ms} ms; the Worker's own time (Graph calls, D1, cleaning) ${q.avg_ms - q.avg_model_ms} ms`,
    );
  });
}
