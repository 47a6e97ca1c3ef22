import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliFor, oneLine } from './helpers';

/** init-db needs no session: it applies the migrations with wrangler, as the dev runner does. */

const { cli } = cliFor('writer');

describe('init-db', () => {
  it('applies the mail migrations to a local database folder, and again with nothing left to do', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mail-cli-db-'));
    const out = await cli(['init-db', '--persist-to', dir]);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('Migrations applied to the local mail database');
    expect(out.stderr).toContain('applying the mail migrations');
    expect(readdirSync(join(dir, 'v3', 'd1')).length).toBeGreaterThan(0);
    expect((await cli(['init-db', '--persist-to', dir])).code).toBe(0);
  }, 90_000);

  it('bad arguments are exit 2', async () => {
    for (const argv of [
      ['init-db', 'now'],
      ['init-db', '--remote', '--persist-to', tmpdir()],
      ['init-db', '--bogus'],
    ]) {
      const out = await cli(argv);
      expect(out.code, argv.join(' ')).toBe(2);
      expect(oneLine(out.stderr)).toMatch(/^mail: /);
    }
  });
});
