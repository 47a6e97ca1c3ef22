import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRecorded } from './helpers';

/**
 * `web` starts the dev runner and announces the mail assistant's address once the stack says it
 * is serving; Ctrl-C stops it. The real runner holds the fixed dev ports, so these tests give the
 * command a small runner of their own that behaves like it (prints, serves, stops on SIGINT).
 */
const dir = mkdtempSync(join(tmpdir(), 'mail-cli-web-'));
const runner = (name: string, body: string) => {
  const path = join(dir, name);
  writeFileSync(path, body);
  return path;
};
const SERVING = runner(
  'serving.mjs',
  `console.log('• starting services');
setTimeout(() => console.log('Serving:\\n  mail http://localhost:8706'), 50);
process.on('SIGINT', () => { console.log('stopped'); process.exit(0); });
setInterval(() => {}, 1000);
`,
);
const FAILING = runner('failing.mjs', `console.error('✗ the racing database did not start'); process.exit(1);\n`);

const web = (devRunner: string, signal?: AbortSignal, onStderr?: (text: string) => void) =>
  runRecorded(
    ['web', '--url', 'http://localhost:8706'],
    { HOME: dir, XDG_CONFIG_HOME: join(dir, 'config') },
    { devRunner, signal, onStderr },
  );

describe('web', () => {
  it('announces the address once the stack serves, forwards its output, and stops it on Ctrl-C', async () => {
    const abort = new AbortController();
    const out = await web(SERVING, abort.signal, (text) => {
      if (text.includes('Serving:')) setTimeout(() => abort.abort(), 50);
    });
    expect(out.code).toBe(0);
    expect(out.stdout).toBe('Mail assistant: http://localhost:8706/outlook\n');
    expect(out.stderr).toContain('• starting services');
    // The runner received SIGINT and shut down by itself.
    expect(out.stderr).toContain('stopped');
  });

  it('a runner that fails is one clear line and exit 1, never an announced address', async () => {
    const out = await web(FAILING);
    expect(out.code).toBe(1);
    expect(out.stdout).toBe('');
    expect(out.stderr).toContain('the racing database did not start');
    expect(out.stderr).toMatch(/mail: npm run dev stopped with code 1\n$/);
  });
});
