import assert from 'node:assert/strict';
import { join } from 'node:path';
import { parseDevVars, readDevVars } from './dev-vars.ts';
import { ROOT, readWorkerConfig, workerConfigPath } from './wrangler-config.ts';

Deno.test("reads every binding kind from the services' wrangler.toml", () => {
  const cms = readWorkerConfig(workerConfigPath('cms'));
  assert.equal(cms.name, 'cms');
  assert.equal(cms.main, join(ROOT, 'workers/cms/src/index.ts'));
  assert.equal(cms.vars.RACING_TIMEZONE, 'Australia/Sydney');
  assert.deepEqual(cms.requiredSecrets, ['DATABASE_URL', 'AUTH_CLIENT_SECRET', 'SESSION_SECRET']);
  assert.deepEqual(cms.d1, [{ binding: 'DB', databaseName: 'cms', migrationsDir: join(ROOT, 'd1/cms/migrations') }]);
  assert.deepEqual(cms.r2, [{ binding: 'MEDIA', bucketName: 'racing-media' }]);
  assert.deepEqual(cms.services, [{ binding: 'AUTH', service: 'auth' }]);
  assert.deepEqual(cms.assets, { directory: join(ROOT, 'node_modules/swagger-ui-dist'), binding: 'ASSETS', runWorkerFirst: true });

  const auth = readWorkerConfig(workerConfigPath('auth'));
  assert.deepEqual(
    auth.durableObjects.map((d) => d.className),
    ['PendingLogin', 'AccountGuard', 'LiveSession'],
  );
  assert.deepEqual(auth.crons, ['23 * * * *']);

  const stats = readWorkerConfig(workerConfigPath('stats'));
  assert.ok(stats.textRules.includes('swagger-ui-dist/swagger-ui.css'));
  const form = readWorkerConfig(workerConfigPath('form'));
  assert.deepEqual(form.assets, { directory: join(ROOT, 'workers/form/assets'), binding: undefined, runWorkerFirst: false });
  const router = readWorkerConfig(workerConfigPath('router'));
  assert.equal(router.main, join(ROOT, 'workers/router/src/index.ts'));
});

Deno.test('every Text module rule of a Worker has a module the host maps it to (deno.json scopes)', () => {
  const denoJson = JSON.parse(Deno.readTextFileSync(join(ROOT, 'deno.json')));
  const mapped = Object.keys(denoJson.scopes['./workers/']);
  for (const name of ['auth', 'cms', 'stats', 'form', 'migrate', 'mail', 'router']) {
    for (const glob of readWorkerConfig(workerConfigPath(name)).textRules) {
      if (glob.startsWith('**/')) continue; // the test runner's form of the same file
      assert.ok(mapped.includes(glob), `${name}: Text module ${glob} has no entry in deno.json scopes`);
    }
  }
});

Deno.test('development secrets come from .dev.vars, else .dev.vars.example', () => {
  assert.deepEqual(parseDevVars('# c\nA=1\nexport B = "two words"\nC=\'x#y\'\nD=plain # note\n\nbad line\n'), {
    A: '1',
    B: 'two words',
    C: 'x#y',
    D: 'plain',
  });
  const { vars, file } = readDevVars(workerConfigPath('stats'));
  assert.ok(file?.includes('workers/stats/.dev.vars'));
  assert.equal(vars.STATIC_API_TOKEN, 'dev-static-token');
  assert.deepEqual(readDevVars(join(ROOT, 'no-such-dir', 'wrangler.toml')), { vars: {} });
});
