/** What the first bytes of a file say it is, checked against the content type it was uploaded with. */

const ascii = (b: Uint8Array, at: number, len: number) => String.fromCharCode(...b.subarray(at, at + len));

/** The container family a file's magic bytes show, in content-type terms. */
export function sniffContentType(b: Uint8Array): string | undefined {
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.length >= 8 && ascii(b, 1, 3) === 'PNG' && b[0] === 0x89 && b[4] === 0x0d && b[5] === 0x0a) return 'image/png';
  if (b.length >= 12 && ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'WEBP') return 'image/webp';
  if (b.length >= 4 && b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3) return 'video/webm';
  if (b.length >= 12 && ascii(b, 4, 4) === 'ftyp') return ascii(b, 8, 4) === 'qt  ' ? 'video/quicktime' : 'video/mp4';
  if (b.length >= 8 && ['moov', 'mdat', 'wide', 'free', 'skip'].includes(ascii(b, 4, 4))) return 'video/quicktime';
  return undefined;
}

/** MP4 and QuickTime share one container (ISO BMFF): either label fits either file. */
export function matchesContentType(declared: string, sniffed: string | undefined): boolean {
  if (!sniffed) return false;
  const bmff = ['video/mp4', 'video/quicktime'];
  return declared === sniffed || (bmff.includes(declared) && bmff.includes(sniffed));
}

export type Dimensions = { width: number; height: number };

/** Width and height from the image header, without decoding the pixels. */
export function imageDimensions(b: Uint8Array): Dimensions | undefined {
  const type = sniffContentType(b);
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (type === 'image/png' && b.length >= 24 && ascii(b, 12, 4) === 'IHDR') {
    return { width: view.getUint32(16), height: view.getUint32(20) };
  }
  if (type === 'image/jpeg') {
    let at = 2;
    while (at + 9 < b.length) {
      if (b[at] !== 0xff) return undefined;
      const marker = b[at + 1]!;
      if (marker === 0xff) {
        at += 1;
        continue;
      }
      // SOFn frames carry the size; C4 (DHT), C8 (JPG) and CC (DAC) share the range but do not.
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { height: view.getUint16(at + 5), width: view.getUint16(at + 7) };
      }
      if (marker === 0xd9 || marker === 0xda) return undefined;
      at += 2 + view.getUint16(at + 2);
    }
    return undefined;
  }
  if (type === 'image/webp' && b.length >= 30) {
    const chunk = ascii(b, 12, 4);
    if (chunk === 'VP8 ') return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff };
    if (chunk === 'VP8L') {
      const bits = view.getUint32(21, true);
      return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
    }
    if (chunk === 'VP8X') {
      const u24 = (at: number) => b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16);
      return { width: u24(24) + 1, height: u24(27) + 1 };
    }
  }
  return undefined;
}
