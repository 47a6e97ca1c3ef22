import { raw } from 'hono/html';
import type { Child } from 'hono/jsx';
import type { SessionUser } from '../context.ts';

/** Bumped with the stylesheet or script, so browsers fetch the new one. */
export const ASSET_VERSION = '4';

export interface LayoutProps {
  title: string;
  /** The signed-in user: shows the navigation and the logout form. */
  user?: SessionUser;
  csrfToken?: string;
  /** The mail client's script. */
  script?: boolean;
  bodyClass?: string;
  children?: Child;
}

export function Layout({ title, user, csrfToken, script = false, bodyClass, children }: LayoutProps) {
  return (
    <>
      {raw('<!DOCTYPE html>')}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          {csrfToken ? <meta name="csrf-token" content={csrfToken} /> : null}
          <title>{`${title} · Mail assistant`}</title>
          <link rel="icon" href="data:," />
          <link rel="stylesheet" href={`/static/mail/mail.css?v=${ASSET_VERSION}`} />
          {script ? <script src={`/static/mail/outlook.js?v=${ASSET_VERSION}`} defer /> : null}
        </head>
        <body class={bodyClass}>
          <a class="skip" href="#main">
            Skip to content
          </a>
          {user ? (
            <header class="top">
              <nav aria-label="Main">
                <a href="/outlook">Mail</a>
                <a href="/inbox">Inbox (plain)</a>
                <a href="/dashboard">Dashboard</a>
                <a href="/admin">Admin</a>
                <a href="/settings">Settings</a>
                <a href="/connect">Mailbox</a>
              </nav>
              <form method="post" action="/logout" class="logout">
                <input type="hidden" name="csrf_token" value={csrfToken} />
                <span class="who">{user.email}</span>
                <button type="submit">Log out</button>
              </form>
            </header>
          ) : null}
          <main id="main" tabindex={-1}>
            {children}
          </main>
        </body>
      </html>
    </>
  );
}

export function ErrorPage({ title, message, user }: { title: string; message: string; user?: SessionUser }) {
  return (
    <Layout title={title} user={user}>
      <section class="panel error" role="alert">
        <h1>{title}</h1>
        <p>{message}</p>
        <p>
          <a href="/outlook">Back to the mailbox</a>
        </p>
      </section>
    </Layout>
  );
}
