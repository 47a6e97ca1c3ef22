import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-pool-workers';
import { defineProject } from 'vitest/config';
import { AUTH_TEST_VARS, TEST_ACCOUNTS } from './accounts';
import './global-setup';
import { PROJECT_TEST_DEFAULTS, prebundled } from '../project-defaults';

const root = new URL('../..', import.meta.url).pathname;
const migrations = await readD1Migrations(`${root}d1/mail/migrations`);

// The mail Worker inside workerd with its real D1 and Durable Object, against the Graph and
// identity stand-in of the root global setup (each test file works on a mailbox of its own
// there), signing in through the real authentication service of ./global-setup.ts.
export default defineProject({
  plugins: [
    cloudflareTest(({ inject }) => ({
      wrangler: { configPath: `${root}workers/mail/wrangler.toml` },
      // The AI binding is always remote: without this the run would need a Cloudflare login. The
      // tests' model is the stand-in's OpenAI-compatible endpoint; Workers AI is tested through a
      // stand-in binding object (workers-ai.test.ts).
      remoteBindings: false,
      miniflare: {
        bindings: {
          TEST_MIGRATIONS: migrations,
          TEST_ACCOUNTS: JSON.stringify(TEST_ACCOUNTS),
          TEST_BACKUP_CODES: inject('mailBackupCodes'),
          GRAPH_STANDIN: inject('mailGraphStandin'),
          GRAPH_BASE_URL: `${inject('mailGraphStandin')}/v1.0`,
          IDENTITY_BASE_URL: inject('mailGraphStandin'),
          MS_CLIENT_ID: 'mail-test-client',
          MS_TENANT: 'common',
          // The address Graph would call; in the tests the stand-in queues its webhook calls
          // and helpers.ts hands them to this Worker.
          MAIL_PUBLIC_URL: 'https://mail.test',
          AUTH_CLIENT_SECRET: AUTH_TEST_VARS.AUTH_SSO_SHARED_SECRET,
          SESSION_SECRET: 'mail-test-session-secret-0123456789abcdef',
          MAIL_TOKEN_SECRET: 'mail-test-token-secret-0123456789abcdef',
          // Short, so that throttling and timeouts are exercised in seconds.
          GRAPH_TIMEOUT_MS: '1500',
          GRAPH_DEADLINE_MS: '6000',
          GRAPH_MAX_RETRIES: '3',
          GRAPH_MAX_RETRY_AFTER_SECONDS: '2',
          // No read cache: the stand-in's own changes (a delivery) reach the Worker only as
          // notifications a test hands over. graph-load.test.ts turns it on for its requests.
          GRAPH_READ_CACHE_MS: '0',
          // Test sessions are of @example.com and the stand-in's @racing.test mailboxes; any
          // other domain is an account not (yet) allowed to use the assistant.
          MAIL_ASSISTANT_ADMINS: '@example.com,@racing.test',
          MODEL_TIMEOUT_MS: '1500',
          // The real OpenAI-compatible backend against the stand-in's /v1/chat/completions (which
          // answers like the offline model, and fails on request: /_standin/llm/faults).
          // One-click unsubscribes may reach the stand-in's list endpoint (loopback, listed by host:port) and public hosts.
          UNSUBSCRIBE_ALLOWED_HOSTS: `*,${new URL(inject('mailGraphStandin')).host}`,
          MAIL_MODEL: 'openai',
          OPENAI_BASE_URL: `${inject('mailGraphStandin')}/v1`,
          OPENAI_MODEL: 'standin-chat',
          OPENAI_API_KEY: 'test-key',
        },
        serviceBindings: {
          AUTH: async (request: Request) => {
            const url = new URL(request.url);
            return fetch(new URL(url.pathname + url.search, inject('mailAuthUrl')), {
              method: request.method,
              headers: request.headers,
              body: request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer(),
            });
          },
        },
      },
    })),
  ],
  test: {
    ...PROJECT_TEST_DEFAULTS,
    name: 'mail',
    deps: prebundled(root, ['workers/mail/src', 'workers/shared', 'durable-objects', 'test/mail']),
    // Sign-in goes through the real auth service (scrypt) and Graph retries wait out Retry-After.
    testTimeout: 30_000,
    // Notifications reach the mailbox object after the webhook has answered (waitUntil), behind
    // the assistant's own look-ups: under a loaded machine that can take longer than a second.
    expect: { poll: { timeout: 10_000 } },
    include: ['test/mail/**/*.test.ts'],
    setupFiles: ['test/mail/setup.ts'],
    globalSetup: ['test/mail/global-setup.ts'],
    root,
  },
});
