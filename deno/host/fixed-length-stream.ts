// `FixedLengthStream`: a Workers-only identity TransformStream of bytes that must carry exactly
// `expectedLength` bytes (the CMS pipes uploads through one into R2). As in workerd: writing past
// the length errors the stream at once, closing it short errors it too, and its readable side
// passes every chunk through unchanged.

export class FixedLengthStream extends TransformStream<ArrayBufferView | ArrayBuffer, Uint8Array> {
  readonly expectedLength: number;

  constructor(expectedLength: number | bigint) {
    const length = typeof expectedLength === 'bigint' ? Number(expectedLength) : expectedLength;
    if (!Number.isSafeInteger(length) || length < 0) throw new RangeError('FixedLengthStream needs a non-negative integer length');
    let seen = 0;
    super({
      transform(chunk, controller) {
        const bytes =
          chunk instanceof ArrayBuffer ? new Uint8Array(chunk) : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        seen += bytes.byteLength;
        if (seen > length) {
          controller.error(new TypeError(`Attempt to write too many bytes through a FixedLengthStream (expected ${length}).`));
          return;
        }
        controller.enqueue(bytes);
      },
      flush(controller) {
        if (seen !== length)
          controller.error(new TypeError(`FixedLengthStream did not see all expected bytes before close() (${seen} of ${length}).`));
      },
    });
    this.expectedLength = length;
  }
}

/** Puts `FixedLengthStream` on the global object, where Workers code finds it. */
export function installFixedLengthStream(): void {
  if ('FixedLengthStream' in globalThis) return;
  Object.defineProperty(globalThis, 'FixedLengthStream', { value: FixedLengthStream, configurable: true, writable: true });
}
