import { type GuardInfo, guardOf } from '#shared/guard.ts';

/** What a Hono app exposes of its routes: one entry per registered handler. */
export type RoutedApp = { routes: readonly { method: string; path: string; handler: unknown }[] };

export type RouteGuard = {
  /** `METHOD /path`, as registered. */
  key: string;
  method: string;
  path: string;
  /** Who may call it, from its one access guard. */
  access: string;
  /** Whether one of its guards refuses forged cross-site requests. */
  antiForgery: boolean;
  /** Whether its caller is a browser session (so a state change needs anti-forgery). */
  browserSession: boolean;
  /** What the checks added to the access guard require, in order ('mailbox', 'assistant'…). */
  requires: string[];
  /** Every guard on the route, in the order it runs. */
  guards: Readonly<GuardInfo>[];
};

/**
 * Every registered route of the app (app-wide middleware, registered for method ALL, is not a
 * route) with the guards among its handlers. Throws naming each route that has no access guard
 * or more than one, so a route added without a guard fails the service's test.
 */
export function routeGuards(app: RoutedApp): RouteGuard[] {
  const byKey = new Map<string, { method: string; path: string; guards: Readonly<GuardInfo>[] }>();
  for (const route of app.routes) {
    if (route.method === 'ALL') continue;
    const key = `${route.method} ${route.path}`;
    const entry = byKey.get(key) ?? { method: route.method, path: route.path, guards: [] };
    const info = guardOf(route.handler);
    if (info) entry.guards.push(info);
    byKey.set(key, entry);
  }
  const problems: string[] = [];
  const routes: RouteGuard[] = [];
  for (const [key, { method, path, guards }] of byKey) {
    const access = guards.filter((g) => g.access !== undefined);
    if (access.length !== 1) {
      problems.push(
        `${key}: ${access.length === 0 ? 'no access guard' : `${access.length} access guards (${access.map((g) => g.access).join(', ')})`}`,
      );
      continue;
    }
    routes.push({
      key,
      method,
      path,
      access: access[0]!.access!,
      antiForgery: guards.some((g) => g.antiForgery),
      browserSession: guards.some((g) => g.browserSession),
      requires: guards.flatMap((g) => (g.requires ? [g.requires] : [])),
      guards,
    });
  }
  if (problems.length) throw new Error(`Routes without exactly one access guard:\n${problems.join('\n')}`);
  return routes;
}

/** `'METHOD /path' -> access` of every route, to compare with a service's table. */
export function accessTable(
  routes: readonly RouteGuard[],
  describe: (route: RouteGuard) => string = (r) => r.access,
): Record<string, string> {
  return Object.fromEntries(routes.map((r) => [r.key, describe(r)]));
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The state-changing routes of a browser session that check no anti-forgery (to be empty). */
export function unprotectedBrowserWrites(routes: readonly RouteGuard[]): string[] {
  return routes.filter((r) => !SAFE_METHODS.has(r.method) && r.browserSession && !r.antiForgery).map((r) => r.key);
}
