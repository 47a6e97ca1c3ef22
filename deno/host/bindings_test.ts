import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DurableObject } from '../shims/cloudflare-workers.ts';
import { StaticAssets } from './assets.ts';
import { createBindings } from './bindings.ts';
import type { D1Database } from '../adapters/d1.ts';
import type { DurableObjectNamespace } from '../adapters/durable-objects.ts';
import type { R2Bucket } from '../adapters/r2.ts';
import { parseWorkerConfig } from './wrangler-config.ts';

class Counter extends DurableObject<Record<string, unknown>> {
  add(n: number): number {
    const now = (this.ctx.storage.kv.get<number>('n') ?? 0) + n;
    this.ctx.storage.kv.put('n', now);
    return now + Number(this.env.BASE ?? 0);
  }
}

const TOML = `
name = "demo"
main = "src/index.ts"
[vars]
BASE = "100"
[secrets]
required = ["TOKEN"]
[assets]
directory = "./assets"
binding = "ASSETS"
[[d1_databases]]
binding = "DB"
database_name = "demo"
migrations_dir = "./migrations"
[[r2_buckets]]
binding = "FILES"
bucket_name = "demo-files"
[[durable_objects.bindings]]
name = "COUNTER"
class_name = "Counter"
[[services]]
binding = "OTHER"
service = "other"
[[services]]
binding = "ABSENT"
service = "absent"
`;

Deno.test('env from wrangler.toml: vars, required secrets only, D1 migrated, R2, DO, services, assets', async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(join(dir, 'migrations'));
    await Deno.writeTextFile(join(dir, 'migrations', '0000_init.sql'), 'CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT);');
    await Deno.mkdir(join(dir, 'assets'));
    await Deno.writeTextFile(join(dir, 'assets', 'a.txt'), 'asset');
    const config = parseWorkerConfig(join(dir, 'wrangler.toml'), TOML);
    const calls: string[] = [];
    const open = () =>
      createBindings(config, {
        stateDir: join(dir, 'state'),
        devVars: { TOKEN: 'secret', OTHER_SECRET: 'not bound' },
        overrides: { PG_WS_PROXY: 'ws://127.0.0.1:1' },
        module: { Counter },
        assets: new StaticAssets(join(dir, 'assets')),
        service: (name) =>
          name === 'other' ? (request) => (calls.push(request.url), Promise.resolve(new Response('from other'))) : undefined,
      });
    const first = await open();
    const env = first.env;
    assert.equal(env.BASE, '100');
    assert.equal(env.TOKEN, 'secret');
    assert.equal(env.OTHER_SECRET, undefined);
    assert.equal(env.PG_WS_PROXY, 'ws://127.0.0.1:1');
    await (env.DB as D1Database).prepare('INSERT INTO t (v) VALUES (?)').bind('x').run();
    await (env.FILES as R2Bucket).put('k', 'v');
    assert.equal(await (env.COUNTER as DurableObjectNamespace<Counter>).getByName('a').add(2), 102);
    assert.equal(await (await (env.OTHER as { fetch: typeof fetch }).fetch('https://other.internal/x')).text(), 'from other');
    assert.deepEqual(calls, ['https://other.internal/x']);
    assert.equal(env.ABSENT, undefined);
    assert.equal(await (await (env.ASSETS as { fetch: typeof fetch }).fetch('http://x/a.txt')).text(), 'asset');
    await first.close();

    // State survives a restart: migrations are not applied twice, rows, objects and DO storage are kept.
    const second = await open();
    assert.equal((await (second.env.DB as D1Database).prepare('SELECT count(*) AS n FROM t').first('n')) as number, 1);
    assert.equal(await (await (second.env.FILES as R2Bucket).get('k'))?.text(), 'v');
    assert.equal(await (second.env.COUNTER as DurableObjectNamespace<Counter>).getByName('a').add(1), 103);
    await second.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test('a Durable Object binding to a class the module does not export is a clear error', async () => {
  const config = parseWorkerConfig('/x/wrangler.toml', '[[durable_objects.bindings]]\nname = "X"\nclass_name = "Missing"\n');
  await assert.rejects(
    createBindings(config, { stateDir: await Deno.makeTempDir(), devVars: {}, overrides: {}, module: {}, service: () => undefined }),
    /names class Missing/,
  );
});
