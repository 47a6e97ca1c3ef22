import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** An error a route raises on purpose: its status and body reach the client as they are. */
export class HttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}
