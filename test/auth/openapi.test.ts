import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import checkedIn from '../../workers/auth/openapi.json';
import { createAuthApp, describeApi } from '../../workers/auth/src/app';

describe('OpenAPI description and /api/docs/', () => {
  it('the checked-in openapi.json is what the routes generate (npx tsx workers/auth/openapi.ts rewrites it)', () => {
    expect(JSON.parse(JSON.stringify(describeApi(createAuthApp())))).toEqual(checkedIn);
  });

  it('describes exactly the JSON API routes the app serves', () => {
    const app = createAuthApp();
    const served = app.routes
      .filter((r) => r.path.startsWith('/api/') && !r.path.startsWith('/api/docs') && r.method !== 'ALL')
      .map((r) => `${r.method} ${r.path}`);
    const described = Object.entries(checkedIn.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));
    expect(new Set(described)).toEqual(new Set(served));
    expect(described.sort()).toEqual([
      'GET /api/whoami/',
      'POST /api/login/',
      'POST /api/token/refresh/',
      'POST /api/token/revoke/',
      'POST /api/verify-2fa/',
    ]);
  });

  it('serves Swagger UI over the file, from the Worker’s own assets', async () => {
    const page = await exports.default.fetch('https://auth.test/api/docs/');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<script src="swagger-init.js"></script>');
    expect(await (await exports.default.fetch('https://auth.test/api/docs/swagger-init.js')).text()).toContain('SwaggerUIBundle');
    expect(html).not.toMatch(/https?:\/\//);
    const spec = await exports.default.fetch('https://auth.test/api/docs/openapi.json');
    expect(await spec.json()).toEqual(checkedIn);
    for (const [file, type] of [
      ['swagger-ui-bundle.js', /javascript/],
      ['swagger-ui.css', /css/],
    ] as const) {
      const res = await exports.default.fetch(`https://auth.test/api/docs/${file}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(type);
      expect((await res.text()).length).toBeGreaterThan(10_000);
    }
    expect((await exports.default.fetch('https://auth.test/api/docs/package.json')).status).toBe(404);
  });
});
