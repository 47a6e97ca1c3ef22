import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ErrorPage } from './layout.tsx';

/** A page answering bad input: the status and every problem, in words. */
export function badRequestPage(c: Context, problems: string[]) {
  return c.html(<ErrorPage title="That address is not valid" message={`${problems.join('; ')}.`} />, 400);
}

export function notFoundPage(c: Context, what: string, id: number) {
  // The spec: an unknown horse, jockey or trainer is a page that says so, with status 200.
  return c.html(<ErrorPage title={`${what} not found`} message={`No ${what.toLowerCase()} with id ${id} was found.`} />, 200);
}

export function errorPage(c: Context, status: ContentfulStatusCode, title: string, message: string, signedIn = true) {
  return c.html(<ErrorPage title={title} message={message} signedIn={signedIn} />, status);
}
