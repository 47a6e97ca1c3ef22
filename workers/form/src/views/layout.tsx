import type { Child } from 'hono/jsx';
import { assetUrl } from '#shared/views/assets.ts';
import { ErrorPage as SharedErrorPage, PageShell } from '#shared/views/page.tsx';
import { ASSET_MANIFEST } from '../asset-manifest.ts';

/** An asset's URL path (under /form) carrying its content hash. */
export const asset = (path: keyof typeof ASSET_MANIFEST) => assetUrl(ASSET_MANIFEST, path);

type AssetPath = keyof typeof ASSET_MANIFEST;

export interface LayoutProps {
  title: string;
  /** Shows the navigation (signed-in pages). */
  signedIn?: boolean;
  /** The page's own stylesheets and scripts (asset paths such as `/form/static/x.css`), after the common ones. */
  styles?: AssetPath[];
  scripts?: AssetPath[];
  children?: Child;
}

const NAV = [
  { href: '/form/runner/', label: 'Runner form' },
  { href: '/form/guide/', label: 'Form guide' },
  { href: '/form/logout/', label: 'Log out' },
];

export function Layout({ title, signedIn = false, styles = [], scripts = [], children }: LayoutProps) {
  const commonScripts: AssetPath[] = signedIn ? ['/form/static/form.js'] : [];
  return (
    <PageShell
      title={title}
      service="Runner form"
      home={signedIn ? '/form/guide/' : '/form/'}
      styles={(['/form/static/page.css', '/form/static/form.css', ...styles] as AssetPath[]).map(asset)}
      scripts={[...commonScripts, ...scripts].map(asset)}
      nav={signedIn ? NAV : undefined}
      headerExtra={
        signedIn ? (
          <form class="search" action="/form/search/" method="get" role="search" data-search>
            <label for="horse-search">Find a horse</label>
            <input
              id="horse-search"
              name="q"
              type="search"
              minlength={3}
              maxlength={100}
              autocomplete="off"
              placeholder="Horse name (3+ letters)"
              aria-controls="search-results"
            />
            <button type="submit">Search</button>
            <ul id="search-results" class="search-results" aria-live="polite"></ul>
          </form>
        ) : undefined
      }
    >
      {children}
    </PageShell>
  );
}

export function ErrorPage({ title, message, signedIn = true }: { title: string; message: string; signedIn?: boolean }) {
  return (
    <SharedErrorPage
      title={title}
      message={message}
      home={{ href: '/form/guide/', label: 'Open today’s form guide' }}
      frame={(body) => (
        <Layout title={title} signedIn={signedIn}>
          {body}
        </Layout>
      )}
    />
  );
}
