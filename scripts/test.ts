import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './workers';

// `npm test`: the Env drift check and the type check of every project run at the lowest CPU
// priority beside vitest (which runs one file at a time and leaves much of the machine waiting on
// workerd, PostgreSQL or Chromium); their output is printed once vitest is done. The run fails if
// any of them fails. Arguments go to vitest (`npm test -- --project auth`).

type Outcome = { ok: boolean; output: string };

/** Runs a command and collects what it prints. */
function collect(command: string, args: string[]): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, WRANGLER_SEND_METRICS: 'false' } });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => resolve({ ok: false, output: `${output}${String(error)}\n` }));
    child.on('close', (code) => resolve({ ok: code === 0, output }));
  });
}

const tsx = join(ROOT, 'node_modules', '.bin', 'tsx');

async function checks(): Promise<Outcome> {
  const types = await collect('nice', ['-n', '19', tsx, 'scripts/types.ts', '--check']);
  const typecheck = await collect('nice', ['-n', '19', tsx, 'scripts/typecheck.ts']);
  return { ok: types.ok && typecheck.ok, output: types.output + typecheck.output };
}

const pendingChecks = checks();
const vitest = await new Promise<boolean>((resolve) => {
  const child = spawn(join(ROOT, 'node_modules', '.bin', 'vitest'), ['run', ...process.argv.slice(2)], { cwd: ROOT, stdio: 'inherit' });
  child.on('error', () => resolve(false));
  child.on('close', (code) => resolve(code === 0));
});
const checked = await pendingChecks;
console.log(`\nType checks (run beside the tests):\n${checked.output.trim()}`);
if (!checked.ok) console.error('✗ type checks failed');
process.exit(vitest && checked.ok ? 0 : 1);
