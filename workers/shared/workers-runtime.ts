// The Workers-only APIs the services use, each behind one function here, so that another host can
// supply them: on Deno, deno/host installs `caches.default` (deno/adapters/cache.ts) and
// `FixedLengthStream` (deno/host/fixed-length-stream.ts) before it loads a service.

/** The Cache API's default cache (`caches.default`, which the web-standard `CacheStorage` lacks). */
export function defaultCache(): Cache {
  return (caches as unknown as { default: Cache }).default;
}

/** A stream that passes exactly `length` bytes and errors otherwise, so R2 knows a streamed body's length up front. */
export function fixedLengthStream(length: number): { readable: ReadableStream<Uint8Array>; writable: WritableStream<Uint8Array> } {
  return new FixedLengthStream(length) as unknown as { readable: ReadableStream<Uint8Array>; writable: WritableStream<Uint8Array> };
}
