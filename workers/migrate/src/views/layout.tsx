import type { Child } from 'hono/jsx';
import { assetUrl } from '#shared/views/assets.ts';
import { ErrorPage as SharedErrorPage, PageShell } from '#shared/views/page.tsx';
import { ASSET_MANIFEST } from '../asset-manifest.ts';
import type { SessionUser } from '../context.ts';
import { CSRF_FIELD } from '../guards.ts';

/** An asset's URL carrying its content hash (`/static/x.js?v=…`). */
export const asset = (path: keyof typeof ASSET_MANIFEST) => assetUrl(ASSET_MANIFEST, path);

export interface PageProps {
  title: string;
  csrf: string;
  user?: SessionUser;
  /** The page's own stylesheets and scripts (asset paths such as `/static/meetings.css`), after the common ones. */
  styles?: (keyof typeof ASSET_MANIFEST)[];
  scripts?: (keyof typeof ASSET_MANIFEST)[];
  children?: Child;
}

const NAV = [
  { href: '/', label: 'Home' },
  { href: '/Configuration', label: 'Configurations' },
  { href: '/Migration/TableSelection', label: 'New migration' },
  { href: '/Session', label: 'Sessions' },
  { href: '/Sync', label: 'Sync jobs' },
  { href: '/Meetings', label: 'Meetings' },
  { href: '/DisciplineRepair', label: 'Discipline repair' },
  { href: '/BarrierTrials', label: 'Barrier trials' },
  { href: '/Sectional', label: 'Sectional times' },
];

export function Layout({ title, csrf, user, styles = [], scripts = [], children }: PageProps) {
  return (
    <PageShell
      title={title}
      service="Data migration"
      home="/"
      head={<meta name="request-verification-token" content={csrf} />}
      styles={['/static/page.css', '/static/migrate.css', ...styles].map((path) => asset(path as keyof typeof ASSET_MANIFEST))}
      scripts={['/static/common.js', '/static/migrate.js', ...scripts].map((path) => asset(path as keyof typeof ASSET_MANIFEST))}
      nav={user ? NAV : undefined}
      user={
        user ? (
          <form method="post" action="/Account/Logout" class="logout site-user">
            <span>
              {user.name} ({user.role})
            </span>
            <Csrf token={csrf} />
            <button type="submit">Sign out</button>
          </form>
        ) : undefined
      }
    >
      {children}
    </PageShell>
  );
}

export const Csrf = ({ token }: { token: string }) => <input type="hidden" name={CSRF_FIELD} value={token} />;

/** A job's log on its progress page (the page's script replaces the entries as it polls); a scrolling box that takes the keyboard's focus. */
export const JobLogList = ({
  entries,
}: {
  entries: { level: string; message: string; timestamp: string; tableName?: string | null }[];
}) => (
  <>
    <h2>Log</h2>
    <ol class="log" data-log tabindex={0} aria-label="Log entries">
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
    <SharedErrorPage
      title={title}
      message={message}
      home={{ href: '/', label: 'Home' }}
      frame={(body) => (
        <Layout title={title} csrf={csrf} user={user}>
          {body}
        </Layout>
      )}
    />
  );
}

export const Flash = ({ message, kind = 'info' }: { message?: string; kind?: 'info' | 'error' }) =>
  message ? (
    <p class={`flash ${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {message}
    </p>
  ) : null;
