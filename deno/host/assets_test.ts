import assert from 'node:assert/strict';
import { join } from 'node:path';
import { parseHeadersFile, StaticAssets } from './assets.ts';
import { ROOT } from './wrangler-config.ts';

Deno.test('serves files by path with type, ETag and 304; misses are null (binding: 404)', async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(join(dir, 'static'));
    await Deno.writeTextFile(join(dir, 'static', 'app.css'), 'body{}');
    await Deno.writeTextFile(join(dir, 'page.html'), '<p>hi</p>');
    await Deno.writeTextFile(
      join(dir, '_headers'),
      '/static/*\n  X-Content-Type-Options: nosniff\n  Cache-Control: public, max-age=3600\n',
    );
    const assets = new StaticAssets(dir);
    const css = await assets.match(new Request('http://x/static/app.css'));
    assert.equal(css?.status, 200);
    assert.equal(css?.headers.get('content-type'), 'text/css; charset=utf-8');
    assert.equal(css?.headers.get('cache-control'), 'public, max-age=3600');
    assert.equal(css?.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(await css?.text(), 'body{}');
    const again = await assets.match(new Request('http://x/static/app.css', { headers: { 'if-none-match': css!.headers.get('etag')! } }));
    assert.equal(again?.status, 304);
    await again?.body?.cancel();
    const page = await assets.match(new Request('http://x/page'));
    assert.equal(await page?.text(), '<p>hi</p>');
    assert.equal(page?.headers.get('cache-control'), 'public, max-age=0, must-revalidate');
    assert.equal(await assets.match(new Request('http://x/_headers')), null);
    assert.equal(await assets.match(new Request('http://x/../../etc/passwd')), null);
    assert.equal(await assets.match(new Request('http://x/static/%2e%2e/%2e%2e/etc/passwd')), null);
    assert.equal(await assets.match(new Request('http://x/static/app.css', { method: 'POST' })), null);
    const missing = await assets.fetch('http://x/nope.js');
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test('the swagger-ui-dist directory auth and CMS bind as ASSETS', async () => {
  const assets = new StaticAssets(join(ROOT, 'node_modules/swagger-ui-dist'));
  const res = await assets.fetch('http://auth.internal/swagger-ui.css', { method: 'HEAD' });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/css; charset=utf-8');
});

Deno.test('_headers patterns: splats, placeholders, detach', () => {
  const rules = parseHeadersFile('# c\n/a/:id/x\n  A: 1\n/*\n  ! B\n');
  assert.ok(rules[0]!.pattern.test('/a/42/x'));
  assert.ok(!rules[0]!.pattern.test('/a/4/2/x'));
  assert.deepEqual(rules[0]!.set, [['A', '1']]);
  assert.deepEqual(rules[1]!.detach, ['B']);
});
