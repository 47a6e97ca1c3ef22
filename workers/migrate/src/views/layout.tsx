import { raw } from 'hono/html';
import type { Child } from 'hono/jsx';
import type { SessionUser } from '../context.ts';
import { CSRF_FIELD } from '../guard.ts';

/** Bumped with the stylesheet or script, so browsers fetch the new one. */
export const ASSET_VERSION = '3';

export interface PageProps {
  title: string;
  csrf: string;
  user?: SessionUser;
  children?: Child;
}

export function Layout({ title, csrf, user, children }: PageProps) {
  return (
    <>
      {raw('<!DOCTYPE html>')}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <meta name="request-verification-token" content={csrf} />
          <title>{`${title} · Data migration`}</title>
          {/* No favicon request (it would be a 404 on every page). */}
          <link rel="icon" href="data:," />
          <link rel="stylesheet" href={`/static/migrate.css?v=${ASSET_VERSION}`} />
          <script src={`/static/migrate.js?v=${ASSET_VERSION}`} defer />
        </head>
        <body>
          {user ? (
            <header class="top">
              <nav aria-label="Main">
                <a href="/">Home</a>
                <a href="/Configuration">Configurations</a>
                <a href="/Migration/TableSelection">New migration</a>
                <a href="/Session">Sessions</a>
                <a href="/Sync">Sync jobs</a>
                <a href="/Meetings">Meetings</a>
                <a href="/DisciplineRepair">Discipline repair</a>
                <a href="/BarrierTrials">Barrier trials</a>
                <a href="/Sectional">Sectional times</a>
              </nav>
              <form method="post" action="/Account/Logout" class="logout">
                <span>
                  {user.name} ({user.role})
                </span>
                <Csrf token={csrf} />
                <button type="submit">Sign out</button>
              </form>
            </header>
          ) : null}
          <main id="main">{children}</main>
        </body>
      </html>
    </>
  );
}

export const Csrf = ({ token }: { token: string }) => <input type="hidden" name={CSRF_FIELD} value={token} />;

/** A job's log on its progress page (the page's script replaces the entries as it polls). */
export const JobLogList = ({ entries }: { entries: { level: string; message: string; timestamp: string; tableName?: string | null }[] }) => (
  <>
    <h2>Log</h2>
    <ol class="log" data-log>
      {entries.map((l) => (
        <li class={l.level}>
          {l.timestamp} {l.level} {l.tableName ? `${l.tableName} ` : ''}
          {l.message}
        </li>
      ))}
    </ol>
  </>
);

/** A running job's Cancel button. */
export const CancelJobForm = ({ action, jobId, csrf }: { action: string; jobId: string; csrf: string }) => (
  <form method="post" action={action} data-cancel-form>
    <Csrf token={csrf} />
    <input type="hidden" name="jobId" value={jobId} />
    <button type="submit" class="danger">
      Cancel
    </button>
  </form>
);

export function ErrorPage({ title, message, csrf, user }: { title: string; message: string; csrf: string; user?: SessionUser }) {
  return (
    <Layout title={title} csrf={csrf} user={user}>
      <section class="error" role="alert">
        <h1>{title}</h1>
        <p>{message}</p>
        <p>
          <a href="/">Home</a>
        </p>
      </section>
    </Layout>
  );
}

export const Flash = ({ message, kind = 'info' }: { message?: string; kind?: 'info' | 'error' }) =>
  message ? (
    <p class={`flash ${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {message}
    </p>
  ) : null;
