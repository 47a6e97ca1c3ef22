import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ASSET_SERVICES,
  SHARED_CSS,
  generatedFiles,
  staleFiles,
  stylesheetCopies,
  writeGeneratedFiles,
  writeStylesheetCopies,
} from '../../scripts/asset-manifest';
import { ROOT } from '../../scripts/workers';
import { assetUrl, contentHash } from '#shared/views/assets.ts';

describe('asset manifests', () => {
  it('the committed manifests and stylesheet module are current (npx tsx scripts/asset-manifest.ts)', () => {
    expect(staleFiles()).toEqual([]);
  });

  it('the shared stylesheet has one source: its copies in the assets are git-ignored, untracked and current', () => {
    const copies = [...stylesheetCopies().keys()];
    expect(copies).toHaveLength(ASSET_SERVICES.length);
    const git = (...args: string[]) => spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
    expect(git('ls-files', '--', ...copies).stdout).toBe('');
    expect(
      git('check-ignore', '--', ...copies)
        .stdout.trim()
        .split('\n')
        .sort(),
    ).toEqual([...copies].sort());
    expect(git('check-ignore', '--', SHARED_CSS).status).toBe(1);
    // vitest.config.ts wrote them before this run's Workers started.
    for (const copy of copies) expect(readFileSync(join(ROOT, copy), 'utf8')).toBe(readFileSync(join(ROOT, SHARED_CSS), 'utf8'));
  });

  // A copy of the inputs in a scratch folder: change a stylesheet there and see the manifest go stale.
  const scratch = mkdtempSync(join(tmpdir(), 'asset-manifest-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('a changed stylesheet makes its manifest stale, and regenerating gives it a new hash', () => {
    cpSync(join(ROOT, 'workers/shared/views'), join(scratch, 'workers/shared/views'), { recursive: true });
    for (const { service, assets } of ASSET_SERVICES) {
      cpSync(join(ROOT, assets), join(scratch, assets), { recursive: true });
      cpSync(join(ROOT, `workers/${service}/src/asset-manifest.ts`), join(scratch, `workers/${service}/src/asset-manifest.ts`));
    }
    expect(staleFiles(scratch)).toEqual([]);

    const css = join(scratch, 'workers/migrate/assets/static/migrate.css');
    const before = generatedFiles(scratch).get('workers/migrate/src/asset-manifest.ts')!;
    appendFileSync(css, '\n.changed { color: red; }\n');
    expect(staleFiles(scratch)).toEqual(['workers/migrate/src/asset-manifest.ts']);
    writeGeneratedFiles(scratch);
    expect(staleFiles(scratch)).toEqual([]);
    const after = readFileSync(join(scratch, 'workers/migrate/src/asset-manifest.ts'), 'utf8');
    expect(after).not.toBe(before);
    expect(after).toContain(`"/static/migrate.css": "${contentHash(readFileSync(css))}"`);
    // The other services' manifests did not change.
    expect(readFileSync(join(scratch, 'workers/form/src/asset-manifest.ts'), 'utf8')).toBe(
      readFileSync(join(ROOT, 'workers/form/src/asset-manifest.ts'), 'utf8'),
    );
  });

  it('a changed shared stylesheet is copied to every service and changes every manifest', () => {
    writeFileSync(join(scratch, SHARED_CSS), `${readFileSync(join(scratch, SHARED_CSS), 'utf8')}\n.shared-change { margin: 0; }\n`);
    const stale = staleFiles(scratch);
    for (const { service } of ASSET_SERVICES) expect(stale).toContain(`workers/${service}/src/asset-manifest.ts`);
    expect(stale).toContain('workers/shared/views/page-css.ts');
    expect(writeGeneratedFiles(scratch)).toEqual(expect.arrayContaining([...stylesheetCopies(scratch).keys(), ...stale]));
    expect(staleFiles(scratch)).toEqual([]);
    for (const { assets, sharedCss } of ASSET_SERVICES)
      expect(readFileSync(join(scratch, assets, sharedCss), 'utf8')).toContain('.shared-change');
  });

  it('a clean clone has no copies: writing them gives each service the source, and a second write changes nothing', () => {
    const clean = mkdtempSync(join(tmpdir(), 'asset-copies-'));
    try {
      cpSync(join(ROOT, SHARED_CSS), join(clean, SHARED_CSS));
      for (const { assets, sharedCss } of ASSET_SERVICES)
        cpSync(join(ROOT, assets, sharedCss, '..'), join(clean, assets, sharedCss, '..'), { recursive: true });
      for (const copy of stylesheetCopies(clean).keys()) rmSync(join(clean, copy));
      expect(writeStylesheetCopies(clean).sort()).toEqual([...stylesheetCopies(clean).keys()].sort());
      for (const copy of stylesheetCopies(clean).keys()) {
        expect(existsSync(join(clean, copy))).toBe(true);
        expect(readFileSync(join(clean, copy), 'utf8')).toBe(readFileSync(join(ROOT, SHARED_CSS), 'utf8'));
      }
      expect(writeStylesheetCopies(clean)).toEqual([]);
    } finally {
      rmSync(clean, { recursive: true, force: true });
    }
  });

  it('assetUrl puts the hash in the query and refuses a path the manifest does not have', () => {
    const manifest = { '/static/a.css': '0123456789' } as const;
    expect(assetUrl(manifest, '/static/a.css')).toBe('/static/a.css?v=0123456789');
    expect(() => assetUrl(manifest as Record<string, string>, '/static/missing.css')).toThrow(/missing\.css/);
    expect(contentHash('a')).toMatch(/^[0-9a-f]{10}$/);
    expect(contentHash('a')).not.toBe(contentHash('b'));
  });
});
