import { HttpError } from './http-error.ts';
import type { Context, Env, MiddlewareHandler } from 'hono';

/**
 * The one way a service reads a request body: at most `maxBytes`, whether or not the client sent
 * Content-Length (a chunked body has none, and a Content-Length can lie).
 *
 * The body is read here, chunk by chunk, counting bytes. Within the cap, the request is replaced
 * by one holding the bytes read, so handlers and validators read it as usual. Over the cap, the
 * rest of the body is still read and thrown away before the 413 goes out: a request answered while
 * its body is half-read leaves the connection stuck (local workerd behind wrangler's proxy: the
 * next request hangs, or a large body restarts the isolate). The drain is bounded by `drainBytes`
 * (default 100 MiB, Cloudflare's own cap on request bodies); past it, or when Content-Length
 * already declares more, the body is cancelled unread.
 */
/** Cloudflare refuses request bodies over 100 MB (Free and Pro plans) before a Worker runs. */
const MAX_DRAIN_BYTES = 100 * 1024 * 1024;

export function limitBody<E extends Env>(
  maxBytes: number,
  tooLarge: (c: Context<E>) => Response | Promise<Response>,
  options: { drainBytes?: number } = {},
): MiddlewareHandler<E> {
  return async (c, next) => {
    const request = c.req.raw;
    if (!request.body) return next();
    const read = await readCapped(request.body, maxBytes, declaredLength(request), options.drainBytes ?? MAX_DRAIN_BYTES);
    if (read === undefined) return tooLarge(c);
    c.req.raw = new Request(request, { body: read });
    await next();
  };
}

function declaredLength(request: Request): number | undefined {
  const header = request.headers.get('content-length');
  if (header === null || !/^\d{1,15}$/.test(header)) return undefined;
  return Number(header);
}

/** The body's bytes, or undefined when it holds more than `maxBytes`. */
export async function readCapped(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  declared: number | undefined,
  drainBytes: number,
): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const reader = body.getReader();
  if (declared !== undefined && declared > maxBytes + drainBytes) {
    // Declared too large to be worth reading: refused without reading it.
    await reader.cancel().catch(() => {});
    return undefined;
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total <= maxBytes) {
        chunks.push(value);
      } else if (total > maxBytes + drainBytes) {
        await reader.cancel().catch(() => {});
        return undefined;
      }
    }
  } catch {
    // The client went away mid-body: nothing usable arrived.
    throw new HttpError(400, 'bad_request', 'The request body could not be read.');
  }
  if (total > maxBytes) return undefined;
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * Installed first in every app: when a response is decided before the body was read (a 401, a
 * 403, a redirect), the body is read to its end and dropped before the answer goes out, for the
 * same reason as in `limitBody`. Bounded the same way.
 */
export function drainUnreadBody(drainBytes = MAX_DRAIN_BYTES): MiddlewareHandler {
  return async (c, next) => {
    const original = c.req.raw;
    await next();
    if (original.body && !original.bodyUsed && !original.body.locked) await drain(original.body, drainBytes);
  };
}

async function drain(body: ReadableStream<Uint8Array>, limit: number): Promise<void> {
  const reader = body.getReader();
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      total += value.byteLength;
      if (total > limit) {
        await reader.cancel();
        return;
      }
    }
  } catch {
    // The client went away: nothing left to read.
  }
}

/** The `tooLarge` answer of a service whose error handler draws the 413: `payload_too_large` as an HttpError. */
export const refuseTooLarge = (maxBytes: number) => (): never => {
  throw new HttpError(413, 'payload_too_large', `The request body is larger than ${maxBytes} bytes.`);
};
