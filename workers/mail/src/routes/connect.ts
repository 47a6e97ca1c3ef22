import { Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { HttpError } from '#shared/http-error.ts';
import { isLoopback } from '../config.ts';
import { CALLBACK_PATH, completeConnection, disconnectMailbox, redirectUri } from '../connection.ts';
import { type MailEnv, mailboxStub } from '../context.ts';
import { csrf, limitBody, pageSession } from '../guards.ts';
import { GrantRefused, finishAuthorization, startAuthorization } from '../oauth.ts';
import { open, seal } from '../sealing.ts';
import { connectPage } from '../views/connect.tsx';
import { errorPage } from '../views/layout.tsx';

/**
 * "Connect mailbox": the authorization-code flow with PKCE. The verifier and state travel in a
 * sealed, HttpOnly cookie bound to the signed-in session, so only the browser that started the
 * flow can finish it, and only once (the cookie is deleted at the callback).
 */

const FLOW_COOKIE = 'mail_oauth';
const FLOW_SECONDS = 600;
const flowCookie = { path: CALLBACK_PATH, httpOnly: true, secure: true, sameSite: 'Lax' } as const;

export const connect = new Hono<MailEnv>();

connect.get('/connect', pageSession, async (c) => {
  const status = await mailboxStub(c.env, c.var.user.id).status();
  const flash = c.req.query('connected') === '1' ? 'The mailbox is connected.' : undefined;
  const warning =
    c.req.query('subscription') === 'failed'
      ? 'Connected, but Graph refused the change-notification subscription; the cron retries it.'
      : undefined;
  return c.html(connectPage({ user: c.var.user, csrfToken: c.var.csrfToken, status, flash, warning }));
});

connect.post('/connect', pageSession, limitBody(4096), csrf, async (c) => {
  const config = c.var.config;
  // The stand-in's default mailbox in development (a login hint names one of its other mailboxes).
  const loginHint = config.MAIL_DEV_AUTO_CONNECT && isLoopback(config.IDENTITY_BASE_URL) ? undefined : c.var.user.email;
  const { url, verifier, state } = await startAuthorization(config, redirectUri(c), loginHint);
  const sealed = await seal(
    c.var.config.MAIL_TOKEN_SECRET,
    'oauth-flow',
    c.var.sessionIdHash,
    JSON.stringify({ verifier, state, at: Date.now() }),
  );
  setCookie(c, FLOW_COOKIE, sealed, { ...flowCookie, maxAge: FLOW_SECONDS });
  return c.redirect(url.toString(), 302);
});

connect.get(CALLBACK_PATH, pageSession, async (c) => {
  const sealed = getCookie(c, FLOW_COOKIE);
  deleteCookie(c, FLOW_COOKIE, flowCookie);
  const fail = (status: 400 | 502, message: string) => c.html(errorPage('Mailbox not connected', message, c.var.user), status);
  const error = c.req.query('error');
  if (error) return fail(400, `Microsoft answered ${error.slice(0, 100)}: ${(c.req.query('error_description') ?? '').slice(0, 300)}`);
  const plain = sealed ? await open(c.var.config.MAIL_TOKEN_SECRET, 'oauth-flow', c.var.sessionIdHash, sealed) : undefined;
  const flow = plain ? (JSON.parse(plain) as { verifier: string; state: string; at: number }) : undefined;
  if (!flow || Date.now() - flow.at > FLOW_SECONDS * 1000)
    return fail(400, 'This connection attempt was not started here, or took too long: start it again from the Mailbox page.');
  try {
    const tokens = await finishAuthorization(c.var.config, new URL(c.req.url), flow.state, flow.verifier, redirectUri(c));
    const connected = await completeConnection(c, tokens);
    return c.redirect(`/connect?connected=1${connected.subscriptionError ? '&subscription=failed' : ''}`, 302);
  } catch (err) {
    if (err instanceof GrantRefused) return fail(400, `Microsoft refused the connection (${err.message}); start it again.`);
    if (err instanceof HttpError) return fail(502, err.message);
    if (err instanceof Error && /state|parameter|response/i.test(err.message))
      return fail(400, `The answer from Microsoft is not valid: ${err.message}`);
    return fail(502, `Microsoft could not be reached: ${err instanceof Error ? err.message : String(err)}`);
  }
});

connect.post('/disconnect', pageSession, limitBody(4096), csrf, async (c) => {
  await disconnectMailbox(c);
  return c.redirect('/connect', 302);
});
