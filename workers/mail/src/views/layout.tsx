import type { Child } from 'hono/jsx';
import { assetUrl } from '#shared/views/assets.ts';
import { ErrorPage as SharedErrorPage, PageShell } from '#shared/views/page.tsx';
import { ASSET_MANIFEST } from '../asset-manifest.ts';
import type { SessionUser } from '../context.ts';

type AssetPath = keyof typeof ASSET_MANIFEST;

/** An asset's URL carrying its content hash (`/static/mail/x.js?v=…`). */
export const asset = (path: AssetPath) => assetUrl(ASSET_MANIFEST, path);

export interface LayoutProps {
  title: string;
  /** The signed-in user: shows the navigation and the logout form. */
  user?: SessionUser;
  csrfToken?: string;
  /** The mail client's script. */
  script?: boolean;
  bodyClass?: string;
  /** The page's own stylesheets and scripts (asset paths such as `/static/mail/x.css`), after the common ones. */
  styles?: AssetPath[];
  scripts?: AssetPath[];
  children?: Child;
}

const NAV = [
  { href: '/outlook', label: 'Mail' },
  { href: '/inbox', label: 'Inbox (plain)' },
  { href: '/dashboard', label: 'Dashboard' },
  { href: '/admin', label: 'Admin' },
  { href: '/settings', label: 'Settings' },
  { href: '/senders', label: 'Senders' },
  { href: '/connect', label: 'Mailbox' },
];

export function Layout({ title, user, csrfToken, script = false, bodyClass, styles = [], scripts = [], children }: LayoutProps) {
  const commonScripts: AssetPath[] = script ? ['/static/mail/outlook.js'] : [];
  return (
    <PageShell
      title={title}
      service="Mail assistant"
      home={user ? '/outlook' : '/login'}
      head={csrfToken ? <meta name="csrf-token" content={csrfToken} /> : undefined}
      styles={(['/static/mail/page.css', '/static/mail/mail.css', ...styles] as AssetPath[]).map(asset)}
      scripts={[...commonScripts, ...scripts].map(asset)}
      bodyClass={bodyClass}
      nav={user ? NAV : undefined}
      user={
        user ? (
          <form method="post" action="/logout" class="logout site-user">
            <input type="hidden" name="csrf_token" value={csrfToken} />
            <span class="who">{user.email}</span>
            <button type="submit">Log out</button>
          </form>
        ) : undefined
      }
    >
      {children}
    </PageShell>
  );
}

export function ErrorPage({ title, message, user }: { title: string; message: string; user?: SessionUser }) {
  return (
    <SharedErrorPage
      title={title}
      message={message}
      class="panel error"
      home={{ href: '/outlook', label: 'Back to the mailbox' }}
      frame={(body) => (
        <Layout title={title} user={user}>
          {body}
        </Layout>
      )}
    />
  );
}

/** The error page as a response body; with the signed-in user it shows the navigation. */
export const errorPage = (title: string, message: string, user?: SessionUser) => <ErrorPage title={title} message={message} user={user} />;
