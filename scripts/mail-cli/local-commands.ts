import { spawn, spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { ROOT, applyLocalD1Migrations, devStateDir, wranglerBin } from '../workers.ts';
import { CliError, EXIT, usageError } from './client.ts';
import { str, flag, type Command } from './command.ts';

/** The local side: the mail database's migrations, and the whole stack started for the browser. */

export const initDbCommand: Command = {
  name: 'init-db',
  summary: 'Apply the mail service’s D1 migrations (the dev database, or --remote)',
  usage: '[--remote] [--persist-to dir]',
  options: {
    remote: { type: 'boolean', description: 'The deployed database (wrangler, your Cloudflare login)' },
    'persist-to': { type: 'string', description: `Local state folder (default the dev runner’s, .wrangler/state/mail)`, argument: 'dir' },
  },
  examples: ['init-db', 'init-db --remote'],
  async run(ctx) {
    const config = 'workers/mail/wrangler.toml';
    if (flag(ctx, 'remote')) {
      if (str(ctx, 'persist-to')) throw usageError('--persist-to is for the local database, not with --remote');
      ctx.progress('applying the mail migrations to the deployed D1 database…');
      const run = spawnSync(wranglerBin(), ['d1', 'migrations', 'apply', 'DB', '--remote', '-c', config], {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, CI: 'true' },
      });
      if (run.status !== 0)
        throw new CliError(
          `wrangler d1 migrations apply --remote failed: ${(run.stderr || run.stdout).trim().split('\n').pop()}`,
          EXIT.failed,
        );
      ctx.print({ applied: true, remote: true }, () => 'Migrations applied to the deployed mail database');
      return;
    }
    const persistTo = resolve(str(ctx, 'persist-to') ?? devStateDir('mail'));
    ctx.progress(`applying the mail migrations to the local database in ${persistTo}…`);
    try {
      applyLocalD1Migrations(config, 'DB', persistTo);
    } catch (err) {
      throw new CliError(`${err instanceof Error ? err.message.split('\n')[0] : String(err)}`, EXIT.failed);
    }
    ctx.print({ applied: true, remote: false, persistTo }, (d) => `Migrations applied to the local mail database (${d.persistTo})`);
  },
};

export const webCommand: Command = {
  name: 'web',
  summary: 'Start the local stack (npm run dev) and print the mail assistant’s address',
  usage: '',
  details: ['Runs until Ctrl-C, which stops every service it started.'],
  examples: ['web'],
  async run(ctx) {
    const child = spawn(
      process.execPath,
      [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), ctx.io.devRunner ?? join(ROOT, 'scripts', 'dev.ts')],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let announced = false;
    const onData = (chunk: Buffer) => {
      ctx.io.stderr(chunk.toString());
      if (!announced && chunk.toString().includes('Serving:')) {
        announced = true;
        ctx.print({ url: `${ctx.base}/outlook` }, (d) => `Mail assistant: ${d.url}`);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const stop = () => child.kill('SIGINT');
    ctx.io.signal?.addEventListener('abort', stop, { once: true });
    const code = await new Promise<number | null>((done) => child.on('exit', done));
    ctx.io.signal?.removeEventListener('abort', stop);
    if (code !== 0 && !ctx.io.signal?.aborted) throw new CliError(`npm run dev stopped with code ${code}`, EXIT.failed);
  },
};
