import { PhotonImage } from '@cf-wasm/photon';
import { env, exports } from 'cloudflare:workers';
import { api } from './helpers';

/** An RGBA test picture with a diagonal gradient (so JPEG has something to compress). */
export function rgba(width: number, height: number): Uint8Array {
  const px = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      px[i] = (x * 255) / width;
      px[i + 1] = (y * 255) / height;
      px[i + 2] = ((x + y) * 7) & 255;
      px[i + 3] = 255;
    }
  }
  return px;
}

export function encodeImage(width: number, height: number, format: 'png' | 'jpeg' | 'webp'): Uint8Array {
  const image = new PhotonImage(rgba(width, height), width, height);
  try {
    return format === 'png' ? image.get_bytes() : format === 'jpeg' ? image.get_bytes_jpeg(85) : image.get_bytes_webp();
  } finally {
    image.free();
  }
}

/** Width and height of stored image bytes, decoded. */
export function decodedSize(bytes: Uint8Array): { width: number; height: number } {
  const image = PhotonImage.new_from_byteslice(bytes);
  try {
    return { width: image.get_width(), height: image.get_height() };
  } finally {
    image.free();
  }
}

/** An MP4 file's first box (ftyp) followed by filler: enough for the container check. */
export function fakeMp4(size = 4096): Uint8Array {
  const bytes = new Uint8Array(size);
  bytes.set([0, 0, 0, 0x18, ...new TextEncoder().encode('ftypisom'), 0, 0, 2, 0, ...new TextEncoder().encode('isomiso2')]);
  for (let i = 24; i < size; i++) bytes[i] = (i * 31) & 255;
  return bytes;
}

export type UploadAddress = {
  uploadUrl: string;
  objectKey: string;
  method: 'PUT';
  headers: { 'content-type': string };
  expiresAt: string;
  maxBytes: number;
};

export async function uploadUrl(cookie: string, query: Record<string, string | number>): Promise<Response> {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
  return api(`/api/v1/media/upload-url?${search}`, { cookie });
}

/** PUT bytes to an upload address as a browser would (Content-Type and Content-Length set). */
export function putTo(url: string, bytes: Uint8Array, contentType: string, length = bytes.length): Promise<Response> {
  return exports.default.fetch(
    new Request(url, { method: 'PUT', headers: { 'content-type': contentType, 'content-length': String(length) }, body: bytes }),
  );
}

/** Step 1 and the PUT; answers the object key to send to step 2. */
export async function upload(
  cookie: string,
  type: 'photo' | 'video',
  bytes: Uint8Array,
  contentType: string,
  slot?: 'original' | 'video' | 'poster',
): Promise<string> {
  const res = await uploadUrl(cookie, { type, contentType, size: bytes.length, ...(slot ? { slot } : {}) });
  if (res.status !== 200) throw new Error(`upload-url: ${res.status} ${await res.text()}`);
  const address = await res.json<UploadAddress>();
  const put = await putTo(address.uploadUrl, bytes, contentType);
  if (put.status !== 200) throw new Error(`PUT: ${put.status} ${await put.text()}`);
  return address.objectKey;
}

/** Every key in the media bucket under a prefix. */
export async function keysUnder(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await env.MEDIA.list({ prefix, cursor });
    keys.push(...page.objects.map((o) => o.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return keys;
}

export async function present(key: string | null | undefined): Promise<boolean> {
  return Boolean(key && (await env.MEDIA.head(key)));
}

export async function rowCount(table: 'photos' | 'videos'): Promise<number> {
  const row = await env.DB.prepare(`select count(*) as n from ${table}`).first<{ n: number }>();
  return row!.n;
}
