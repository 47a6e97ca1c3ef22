// `crypto.subtle.timingSafeEqual(a, b)`: a Workers-only extension of SubtleCrypto (the stats
// service compares token digests with it). Same contract as workerd: two BufferSources of equal
// length, compared without an early exit; different lengths are a TypeError.

type Bytes = ArrayBuffer | ArrayBufferView;

function view(value: Bytes, name: string): Uint8Array {
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw new TypeError(`Failed to execute 'timingSafeEqual' on 'SubtleCrypto': parameter ${name} is not of type 'ArrayBuffer or ArrayBufferView'.`);
}

export function timingSafeEqual(a: Bytes, b: Bytes): boolean {
  const left = view(a, '1');
  const right = view(b, '2');
  if (left.byteLength !== right.byteLength) {
    throw new TypeError("Failed to execute 'timingSafeEqual' on 'SubtleCrypto': the two buffers must have the same length.");
  }
  let diff = 0;
  for (let i = 0; i < left.byteLength; i++) diff |= left[i]! ^ right[i]!;
  return diff === 0;
}

/** Adds `timingSafeEqual` to `crypto.subtle` (once; a runtime that has one keeps it). */
export function installTimingSafeEqual(): void {
  const subtle = crypto.subtle as SubtleCrypto & { timingSafeEqual?: typeof timingSafeEqual };
  if (typeof subtle.timingSafeEqual === 'function') return;
  Object.defineProperty(Object.getPrototypeOf(subtle), 'timingSafeEqual', { value: timingSafeEqual, configurable: true, writable: true });
}
