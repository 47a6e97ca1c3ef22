import { signIn } from '../scripts/graph-standin/client.ts';
import { GraphClient } from '../workers/mail/src/graph/client.ts';
import { Semaphore, sendGraph } from '../workers/mail/src/graph/transport.ts';
import { BENCH_MAIL_CLIENT_ID as CLIENT_ID, withBenchMail } from './mail-worker.ts';
import { median, ms, percentile, sample } from './stats.ts';

const settings = (graphBaseUrl: string) => ({
  GRAPH_BASE_URL: graphBaseUrl,
  GRAPH_TIMEOUT_MS: 10_000,
  GRAPH_DEADLINE_MS: 25_000,
  GRAPH_MAX_RETRIES: 3,
  GRAPH_MAX_RETRY_AFTER_SECONDS: 10,
  GRAPH_MAX_WAITING_READS: 32,
});

/**
 * `/api/emails/inbox` and `/api/thread/<id>` through the mail Worker (local workerd, session
 * check in D1, the mailbox Durable Object, Graph calls to the stand-in), next to the same Graph
 * calls made straight to the stand-in from Node: the ratio is the Worker's overhead.
 */
export async function benchMail({ runs }: { runs: number }) {
  await withBenchMail({}, async ({ base, cookie, standin }) => {
    const get = async (path: string) => {
      const res = await fetch(`${base}${path}`, { headers: { cookie } });
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      return res.json() as Promise<unknown>;
    };
    const inbox = (await get('/api/emails/inbox?top=25')) as { items: { id: string; conversationId: string }[] };
    const counts = (await get('/api/conversation-counts')) as { counts: Record<string, number> };
    const threaded = inbox.items.find((m) => (counts.counts[m.conversationId] ?? 0) > 1) ?? inbox.items[0]!;
    const thread = (await get(`/api/thread/${encodeURIComponent(threaded.id)}`)) as { messages: unknown[] };

    // The same Graph calls, straight to the stand-in, with the same client code.
    const tokens = await signIn(standin.url, {
      clientId: CLIENT_ID,
      scope: 'offline_access User.Read Mail.ReadWrite Mail.Send People.Read',
    });
    const slots = new Semaphore(4);
    const graph = new GraphClient(
      {
        graph: (request) => sendGraph(request, { settings: settings(standin.graphBaseUrl), slots, token: async () => tokens.access_token }),
      },
      standin.graphBaseUrl,
    );

    const rows: [string, number[], number[]][] = [];
    rows.push([
      '/api/emails/inbox?top=25',
      await sample(runs, () => get('/api/emails/inbox?top=25')),
      await sample(runs, async () => {
        const folder = await graph.folder('inbox');
        await graph.messages(folder.id!, { top: 25, skip: 0 });
      }),
    ]);
    rows.push([
      `/api/thread/<id> (${thread.messages.length} messages)`,
      await sample(runs, () => get(`/api/thread/${encodeURIComponent(threaded.id)}`)),
      await sample(runs, async () => {
        const message = await graph.message(threaded.id);
        await graph.conversation(message.conversationId!);
      }),
    ]);

    console.log(`\nMail assistant (${runs} runs each; the stand-in's own time is the same Graph calls made from Node)`);
    console.log(
      `${'request'.padEnd(40)} ${'Worker p50'.padStart(11)} ${'Worker p95'.padStart(11)} ${'stand-in p50'.padStart(13)} ${'ratio'.padStart(6)}`,
    );
    for (const [name, viaWorker, direct] of rows) {
      console.log(
        `${name.padEnd(40)} ${ms(median(viaWorker)).padStart(11)} ${ms(percentile(viaWorker, 95)).padStart(11)} ${ms(median(direct)).padStart(13)} ${(median(viaWorker) / median(direct)).toFixed(1).padStart(5)}×`,
      );
    }
  });
}
