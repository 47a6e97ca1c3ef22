import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signIn } from '../scripts/graph-standin/client';
import { startGraphStandin } from '../scripts/graph-standin/server';
import { applyLocalD1Migrations, startLocalWorker } from '../scripts/local-worker';
import { ROOT, executeD1 } from '../scripts/workers';
import { GraphClient } from '../workers/mail/src/graph/client';
import { Semaphore, sendGraph } from '../workers/mail/src/graph/transport';
import { randomBytes, sha256Hex, toBase64Url } from '../workers/shared/encoding';
import { median, ms, percentile, sample } from './stats';

const CONFIG = 'workers/mail/wrangler.toml';
const SESSION_SECRET = 'bench-mail-session-secret-0123456789abcdef';
const CLIENT_ID = 'bench-mail-client';
const OWNER = 'bench@racing.test';

const settings = (graphBaseUrl: string) => ({ GRAPH_BASE_URL: graphBaseUrl, GRAPH_TIMEOUT_MS: 10_000, GRAPH_DEADLINE_MS: 25_000, GRAPH_MAX_RETRIES: 3, GRAPH_MAX_RETRY_AFTER_SECONDS: 10 });

/**
 * `/api/emails/inbox` and `/api/thread/<id>` through the mail Worker (local workerd, session
 * check in D1, the mailbox Durable Object, Graph calls to the stand-in), next to the same Graph
 * calls made straight to the stand-in from Node: the ratio is the Worker's overhead.
 */
export async function benchMail({ runs }: { runs: number }) {
  const standin = await startGraphStandin({ port: 0 });
  const state = mkdtempSync(join(tmpdir(), 'bench-mail-'));
  try {
        applyLocalD1Migrations(CONFIG, 'DB', state);
    // A session stored the way a sign-in stores it, so no request calls the authentication service.
    const id = toBase64Url(randomBytes(32));
    const idHash = await sha256Hex(id);
    const now = Date.now();
    executeD1(CONFIG, 'DB', [`insert into sessions (id_hash, user_id, email, name, refresh_token_sealed, created_at, expires_at, checked_at) values ('${idHash}', 1, '${OWNER}', 'Bench', 'v1.none.none', ${now}, ${now + 86_400_000}, ${now})`], { persistTo: state });
    const cookie = `mail_session=${id}`;
    const worker = await startLocalWorker({
      config: join(ROOT, CONFIG),
      persistTo: state,
      // An empty dev registry: the AUTH binding resolves (no request here needs it).
      registry: join(state, 'registry'),
      logLevel: 'error',
      vars: {
        GRAPH_BASE_URL: standin.graphBaseUrl,
        IDENTITY_BASE_URL: standin.identityBaseUrl,
        MS_CLIENT_ID: CLIENT_ID,
        AUTH_CLIENT_SECRET: 'bench-unused-auth-client-secret',
        SESSION_SECRET,
        MAIL_TOKEN_SECRET: 'bench-mail-token-secret-0123456789abcdef',
        // The first request connects the stand-in's mailbox (no consent round trip).
        MAIL_DEV_AUTO_CONNECT: 'true',
        // No authentication service here: the stored session is not rechecked during the run.
        SESSION_RECHECK_SECONDS: '86400',
      },
    });
    try {
      const base = (await worker.url).toString().replace(/\/$/, '');
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
      const tokens = await signIn(standin.url, { clientId: CLIENT_ID, scope: 'offline_access User.Read Mail.ReadWrite Mail.Send People.Read' });
      const slots = new Semaphore(4);
      const graph = new GraphClient({ graph: (request) => sendGraph(request, { settings: settings(standin.graphBaseUrl), slots, token: async () => tokens.access_token }) }, standin.graphBaseUrl);

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
      console.log(`${'request'.padEnd(40)} ${'Worker p50'.padStart(11)} ${'Worker p95'.padStart(11)} ${'stand-in p50'.padStart(13)} ${'ratio'.padStart(6)}`);
      for (const [name, viaWorker, direct] of rows) {
        console.log(`${name.padEnd(40)} ${ms(median(viaWorker)).padStart(11)} ${ms(percentile(viaWorker, 95)).padStart(11)} ${ms(median(direct)).padStart(13)} ${(median(viaWorker) / median(direct)).toFixed(1).padStart(5)}×`);
      }
    } finally {
      await worker.dispose();
    }
  } finally {
    await standin.close();
    rmSync(state, { recursive: true, force: true });
  }
}
