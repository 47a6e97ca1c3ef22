/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// (The pragma: this folder has no tsconfig of its own, and wrangler compiles it with the nearest one.)
import { raw } from 'hono/html';
import type { Child } from 'hono/jsx';

export interface NavLink {
  href: string;
  label: string;
}

export interface PageShellProps {
  /** The page's own name: `<title>{title} · {service}</title>`. */
  title: string;
  /** The service's name, shown at the start of the header. */
  service: string;
  /** Where the service's name links to. */
  home: string;
  /** The header's navigation (folded into a menu button on a phone). */
  nav?: NavLink[];
  /** The signed-in person's box (their name and the sign-out form), inside the menu. */
  user?: Child;
  /** More of the header that stays outside the menu (a search form). */
  headerExtra?: Child;
  /** Extra `<head>` elements (a CSRF `<meta>`). */
  head?: Child;
  /** Stylesheet URLs, in order (versioned with `assetUrl`). */
  styles?: string[];
  /** An inline stylesheet, for services whose page policy allows one. */
  inlineStyle?: string;
  /** Script URLs, loaded deferred after the document is parsed. */
  scripts?: string[];
  bodyClass?: string;
  children?: Child;
}

/**
 * The one page layout of every service: the same head (charset, viewport, title, no favicon
 * request, stylesheets, deferred scripts), a skip link to `#main`, a header with the service's
 * name, its navigation and the signed-in person's box, and `<main id="main">`. On a narrow screen
 * the navigation folds into a `<details>` menu, which opens without a script and from the keyboard;
 * page.css (structural, shared) lays it out, each service's stylesheet colours it.
 */
export function PageShell(props: PageShellProps) {
  const menu = (props.nav && props.nav.length > 0) || props.user;
  return (
    <>
      {raw('<!DOCTYPE html>')}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          {props.head}
          <title>{`${props.title} · ${props.service}`}</title>
          {/* No favicon request (it would be a 404 on every page). */}
          <link rel="icon" href="data:," />
          {(props.styles ?? []).map((href) => (
            <link rel="stylesheet" href={href} />
          ))}
          {props.inlineStyle ? <style>{raw(props.inlineStyle)}</style> : null}
          {(props.scripts ?? []).map((src) => (
            <script src={src} defer />
          ))}
        </head>
        <body class={props.bodyClass}>
          <a class="skip" href="#main">
            Skip to content
          </a>
          <header class="top site-header">
            <a class="site-name" href={props.home}>
              {props.service}
            </a>
            {menu ? (
              <details class="site-menu">
                <summary>Menu</summary>
                <div class="site-menu-body">
                  {props.nav && props.nav.length > 0 ? (
                    <nav aria-label="Main">
                      {props.nav.map((link) => (
                        <a href={link.href}>{link.label}</a>
                      ))}
                    </nav>
                  ) : null}
                  {props.user}
                </div>
              </details>
            ) : null}
            {props.headerExtra ? <div class="site-extra">{props.headerExtra}</div> : null}
          </header>
          <main id="main" tabindex={-1}>
            {props.children}
          </main>
        </body>
      </html>
    </>
  );
}

/**
 * The error page's body, in the service's own layout (`frame`): the title, what went wrong, and a
 * link back to where the service starts.
 */
export function ErrorPage(props: { title: string; message: string; home: NavLink; class?: string; frame: (children: Child) => Child }) {
  return props.frame(
    <section class={props.class ?? 'error'} role="alert">
      <h1>{props.title}</h1>
      <p>{props.message}</p>
      <p>
        <a href={props.home.href}>{props.home.label}</a>
      </p>
    </section>,
  );
}
