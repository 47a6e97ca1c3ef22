import { defineGuard } from '#shared/guard.ts';
import type { FormEnv } from './context.ts';

/**
 * The form guide's guards (workers/shared/guard.ts), one named in each route's definition: the
 * login page, its form and the horse search are open (the spec's public pair); everything else
 * needs the session, read for every request ahead of the routes.
 */

/** Who may call a form route: anyone, or the signed-in user (the session cookie). */
export type FormAccess = 'session';

/** A signed-in user; without a session, pages and lookups alike go to the login page. */
export const signedIn = defineGuard<FormEnv, FormAccess>({ access: 'session', browserSession: true }, async (c, next) => {
  if (!c.var.session) return c.redirect('/form/', 302);
  await next();
});
