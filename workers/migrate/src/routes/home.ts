import { Hono } from 'hono';
import { activeConfiguration } from '../configurations.ts';
import type { MigrateEnv } from '../context.ts';
import { guard } from '../guards.ts';
import { ErrorPage } from '../views/layout.tsx';
import { HomePage } from '../views/home.tsx';

/** Home: the start page, with whether an active configuration exists. */
export const home = new Hono<MigrateEnv>();

for (const path of ['/', '/Home', '/Home/Index']) {
  home.get(path, guard.read('any'), async (c) => {
    const active = await activeConfiguration(c.var.db);
    return c.html(HomePage({ csrf: c.var.csrfToken, user: c.var.user, active }));
  });
}

home.get('/Home/Error', guard.read('any'), (c) =>
  c.html(
    ErrorPage({ title: 'Error', message: 'An error occurred while processing your request.', csrf: c.var.csrfToken, user: c.var.user }),
  ),
);
