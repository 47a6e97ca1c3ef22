import type { Env, MiddlewareHandler } from 'hono';

/**
 * Access control is part of each route's definition: every route names exactly one access guard
 * in its own `app.get(path, guard, handler)` or `createRoute({ middleware: [guard, ...] })`, never
 * a list of paths kept elsewhere. A guard is a middleware declared here with what it checks, so
 * a test can walk `app.routes` and read every route's access off its handlers.
 */

/** Who may call a route: anyone, or a level (role, credential) the service names. */
export type Access<Level extends string = string> = 'anonymous' | Level;

export type GuardInfo<Level extends string = string> = {
  /**
   * Who may call the routes behind it. Set on access guards (one per route); absent on checks
   * that only add to a route's access guard (anti-forgery alone, a role or a connected mailbox).
   */
  access?: Access<Level>;
  /** Whether it refuses forged cross-site requests (anti-forgery token or same-origin check). */
  antiForgery?: boolean;
  /** Whether the caller is a browser session (a cookie), which anti-forgery must then cover. */
  browserSession?: boolean;
  /** What an added check requires, for checks that are not access guards ('mailbox', 'assistant'). */
  requires?: string;
};

const registry = new WeakMap<object, GuardInfo>();

/** Declares `middleware` a guard with `info`; returns the middleware itself. */
export function defineGuard<E extends Env, Level extends string = string>(
  info: GuardInfo<Level>,
  middleware: MiddlewareHandler<E>,
): MiddlewareHandler<E> {
  if (registry.has(middleware)) throw new Error('This middleware is already a guard; declare a new function for other information.');
  registry.set(middleware, { ...info });
  return middleware;
}

/** The guard information of a registered handler, if it is a guard. */
export function guardOf(handler: unknown): Readonly<GuardInfo> | undefined {
  return typeof handler === 'function' ? registry.get(handler) : undefined;
}

/** A route open to anyone, saying so in its definition: a middleware that only goes on. */
export const anonymous: MiddlewareHandler = defineGuard({ access: 'anonymous' }, async (_c, next) => {
  await next();
});
