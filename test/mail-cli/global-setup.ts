import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startGraphStandin } from '../../scripts/graph-standin/server';
import { applyLocalD1Migrations } from '../../scripts/local-worker';
import { startTestAuthService } from '../support/auth-service';
import { startServiceWorker } from '../support/browser';
import { CLI_ACCOUNTS, CLI_AUTH_VARS, type CliAccountName } from './accounts';

/**
 * Once for the command-line tests: the Graph stand-in with a seeded mailbox per account (its
 * webhook calls go to the mail Worker over HTTP), the real authentication Worker, and the mail
 * Worker in local workerd reaching it by service binding — as `npm run dev` runs them.
 */
export default async function setup(project: TestProject) {
  const registry = mkdtempSync(join(tmpdir(), 'mail-cli-registry-'));
  const state = mkdtempSync(join(tmpdir(), 'mail-cli-state-'));
  applyLocalD1Migrations('workers/mail/wrangler.toml', 'DB', state);
  const standin = await startGraphStandin({ port: 0 });
  const controls = {} as Record<CliAccountName, string>;
  for (const [name, account] of Object.entries(CLI_ACCOUNTS) as [CliAccountName, (typeof CLI_ACCOUNTS)[CliAccountName]][]) {
    const res = await fetch(`${standin.url}/_standin/mailboxes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ mail: account.email, seed: 'racing', displayName: `CLI ${name}` }),
    });
    if (res.status !== 201) throw new Error(`stand-in mailbox: ${res.status} ${await res.text()}`);
    controls[name] = ((await res.json()) as { control: string }).control;
  }
  const auth = await startTestAuthService(CLI_ACCOUNTS, CLI_AUTH_VARS, { registry });
  const mail = await startServiceWorker(
    'mail',
    {
      GRAPH_BASE_URL: standin.graphBaseUrl,
      IDENTITY_BASE_URL: standin.identityBaseUrl,
      MS_CLIENT_ID: 'cli-mail-client',
      AUTH_CLIENT_SECRET: CLI_AUTH_VARS.AUTH_SSO_SHARED_SECRET,
      SESSION_SECRET: 'cli-mail-session-secret-0123456789abcdef',
      MAIL_TOKEN_SECRET: 'cli-mail-token-secret-0123456789abcdef',
      // The assistant account may use the AI routes; the others are plain users.
      MAIL_ASSISTANT_ADMINS: `${CLI_ACCOUNTS.assistant.email},${CLI_ACCOUNTS.curator.email}`,
      // Short, so that Graph failures are reported in seconds.
      GRAPH_TIMEOUT_MS: '2000',
      GRAPH_DEADLINE_MS: '6000',
      GRAPH_MAX_RETRY_AFTER_SECONDS: '1',
      // No read cache: the tests change the stand-in's mailbox directly and read it again at once.
      GRAPH_READ_CACHE_MS: '0',
      // The deployed default is Workers AI, which local workerd cannot run: the offline model, as `npm run dev` uses.
      MAIL_MODEL: 'offline',
      // RFC 8058 one-click requests may reach the stand-in's list endpoint (plain http, loopback, by name)
      UNSUBSCRIBE_ALLOWED_HOSTS: `*,${new URL(standin.url).host}`,
    },
    { registry, persistTo: state, logLevel: 'error' },
  );
  project.provide('mailCli', {
    url: mail.url,
    standin: standin.url,
    controls,
    backupCodes: auth.backupCodes as Record<CliAccountName, string[]>,
  });
  return async () => {
    await mail.dispose();
    await auth.dispose();
    await standin.close();
    for (const dir of [registry, state]) rmSync(dir, { recursive: true, force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    mailCli: { url: string; standin: string; controls: Record<CliAccountName, string>; backupCodes: Record<CliAccountName, string[]> };
  }
}
