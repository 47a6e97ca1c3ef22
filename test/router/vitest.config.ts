import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import { defineProject } from 'vitest/config';
import { PROJECT_TEST_DEFAULTS } from '../project-defaults';

const root = new URL('../..', import.meta.url).pathname;

// The router with stand-in services bound under the names the real ones use.
export default defineProject({
  plugins: [
    cloudflareTest({
      main: `${root}workers/router/src/index.ts`,
      wrangler: { configPath: `${root}wrangler.toml` },
      miniflare: {
        serviceBindings: {
          STATS: (request: Request) =>
            Response.json({ service: 'stats', url: request.url, requestId: request.headers.get('x-request-id') }),
          AUTH: (request: Request) => Response.json({ service: 'auth', url: request.url }, { status: 201 }),
          CMS: (request: Request) => Response.json({ service: 'cms', path: new URL(request.url).pathname }),
          FORM: (request: Request) => Response.json({ service: 'form', path: new URL(request.url).pathname }),
          MIGRATE: (request: Request) => Response.json({ service: 'migrate', path: new URL(request.url).pathname }),
          MAIL: (request: Request) => Response.json({ service: 'mail', path: new URL(request.url).pathname }),
        },
      },
    }),
  ],
  test: { ...PROJECT_TEST_DEFAULTS, name: 'router', include: ['test/router/**/*.test.ts'], root },
});
