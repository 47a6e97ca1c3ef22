import { raw } from 'hono/html';
import type { Child } from 'hono/jsx';

/** Bumped with the stylesheet or script, so browsers fetch the new one. */
export const ASSET_VERSION = '5';

export interface LayoutProps {
  title: string;
  /** Shows the navigation (signed-in pages). */
  signedIn?: boolean;
  children?: Child;
}

export function Layout({ title, signedIn = false, children }: LayoutProps) {
  return (
    <>
      {raw('<!DOCTYPE html>')}
      <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · Runner form`}</title>
        <link rel="stylesheet" href={`/form/static/form.css?v=${ASSET_VERSION}`} />
        {signedIn ? <script src={`/form/static/form.js?v=${ASSET_VERSION}`} defer /> : null}
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        {signedIn ? (
          <header class="top">
            <nav aria-label="Main">
              <a href="/form/runner/">Runner form</a>
              <a href="/form/guide/">Form guide</a>
              <a href="/form/logout/">Log out</a>
            </nav>
            <form class="search" action="/form/search/" method="get" role="search" data-search>
              <label for="horse-search">Find a horse</label>
              <input id="horse-search" name="q" type="search" minlength={3} maxlength={100} autocomplete="off" placeholder="Horse name (3+ letters)" aria-controls="search-results" />
              <button type="submit">Search</button>
              <ul id="search-results" class="search-results" aria-live="polite"></ul>
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

export function ErrorPage({ title, message, signedIn = true }: { title: string; message: string; signedIn?: boolean }) {
  return (
    <Layout title={title} signedIn={signedIn}>
      <section class="error" role="alert">
        <h1>{title}</h1>
        <p>{message}</p>
        <p>
          <a href="/form/guide/">Open today’s form guide</a>
        </p>
      </section>
    </Layout>
  );
}
