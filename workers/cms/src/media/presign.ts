import { AwsV4Signer } from 'aws4fetch';
import { derivedKey, toHex, utf8 } from '#shared/crypto.ts';
import type { R2Credentials } from './config.ts';

export type PresignOptions = {
  method: 'GET' | 'PUT';
  url: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  expiresSeconds: number;
  /** Headers the client must send exactly as given; they are bound into the signature. */
  headers?: Record<string, string>;
  /** `YYYYMMDDTHHMMSSZ`; now when absent. */
  datetime?: string;
};

/** An S3 SigV4 query-signed address (a presigned URL). */
export async function presignS3(options: PresignOptions): Promise<URL> {
  const url = new URL(options.url);
  url.searchParams.set('X-Amz-Expires', String(options.expiresSeconds));
  const signer = new AwsV4Signer({
    method: options.method,
    url: url.toString(),
    headers: options.headers ?? {},
    accessKeyId: options.accessKeyId,
    secretAccessKey: options.secretAccessKey,
    service: 's3',
    region: options.region,
    signQuery: true,
    // content-type is on aws4fetch's unsignable list by default: sign every header given here.
    allHeaders: true,
    ...(options.datetime ? { datetime: options.datetime } : {}),
  });
  const signed = await signer.sign();
  return signed.url;
}

export const amzDate = (date: Date) => date.toISOString().replace(/[:-]|\.\d{3}/g, '');

/** The R2 S3 endpoint (path style) of an object; keys are encoded per segment. */
export function r2ObjectUrl(credentials: R2Credentials, key: string): string {
  const path = key.split('/').map(encodeURIComponent).join('/');
  return `https://${credentials.accountId}.r2.cloudflarestorage.com/${encodeURIComponent(credentials.bucket)}/${path}`;
}

/** A presigned PUT straight to R2 for one object, of one content type, for a short while. */
export function presignR2Put(credentials: R2Credentials, key: string, contentType: string, expiresSeconds: number, now = new Date()) {
  return presignS3({
    method: 'PUT',
    url: r2ObjectUrl(credentials, key),
    accessKeyId: credentials.accessKeyId,
    secretAccessKey: credentials.secretAccessKey,
    region: 'auto',
    expiresSeconds,
    headers: { 'content-type': contentType },
    datetime: amzDate(now),
  });
}

// --- The Worker's own upload addresses, for deployments without S3 credentials (and locally).

/** HMAC key for upload addresses, derived from SESSION_SECRET under its own label. */
const uploadKey = (secret: string) =>
  derivedKey(secret, 'cms-media-upload-url', { name: 'HMAC', hash: 'SHA-256', length: 256 }, ['sign', 'verify']);

export type UploadGrant = { key: string; contentType: string; maxBytes: number; expires: number };

const grantText = (g: UploadGrant) => ['PUT', g.key, g.contentType, String(g.maxBytes), String(g.expires)].join('\n');

function fromHex(hex: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[0-9a-f]{64}$/.test(hex)) return undefined;
  return Uint8Array.from(hex.match(/../g)!, (h) => parseInt(h, 16));
}

export async function signUpload(secret: string, grant: UploadGrant): Promise<string> {
  return toHex(await crypto.subtle.sign('HMAC', await uploadKey(secret), utf8(grantText(grant))));
}

/** Constant-time check (WebCrypto verify) of an upload address's signature. */
export async function verifyUpload(secret: string, grant: UploadGrant, signature: string): Promise<boolean> {
  const sig = fromHex(signature);
  return sig !== undefined && crypto.subtle.verify('HMAC', await uploadKey(secret), sig, utf8(grantText(grant)));
}
