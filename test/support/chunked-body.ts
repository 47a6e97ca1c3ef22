/** A body of `size` bytes sent as a stream, so it goes without Content-Length (chunked). */
export function chunkedBody(size: number): ReadableStream<Uint8Array> {
  const chunk = new TextEncoder().encode('a'.repeat(16 * 1024));
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= size) return controller.close();
      controller.enqueue(chunk);
      sent += chunk.byteLength;
    },
  });
}
