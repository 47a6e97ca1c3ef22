// R2's option and result types, as @cloudflare/workers-types declares them, and the sidecar's shape.

import type { R2Object } from './objects.ts';

export interface R2HTTPMetadata {
  contentType?: string;
  contentLanguage?: string;
  contentDisposition?: string;
  contentEncoding?: string;
  cacheControl?: string;
  cacheExpiry?: Date;
}
export type R2Range = { offset: number; length?: number } | { offset?: number; length: number } | { suffix: number };
export interface R2Conditional {
  etagMatches?: string;
  etagDoesNotMatch?: string;
  uploadedBefore?: Date;
  uploadedAfter?: Date;
  secondsGranularity?: boolean;
}
export interface R2GetOptions {
  onlyIf?: R2Conditional | Headers;
  range?: R2Range | Headers;
}
export type ChecksumName = 'md5' | 'sha1' | 'sha256' | 'sha384' | 'sha512';
export type R2PutOptions = {
  onlyIf?: R2Conditional | Headers;
  httpMetadata?: R2HTTPMetadata | Headers;
  customMetadata?: Record<string, string>;
  storageClass?: string;
} & { [K in ChecksumName]?: ArrayBuffer | ArrayBufferView | string };
export interface R2ListOptions {
  limit?: number;
  prefix?: string;
  cursor?: string;
  delimiter?: string;
  startAfter?: string;
  /** Which metadata listed objects carry (none unless asked, as on R2). */
  include?: ('httpMetadata' | 'customMetadata')[];
}
export type R2Objects = { objects: R2Object[]; delimitedPrefixes: string[] } & ({ truncated: true; cursor: string } | { truncated: false });
export type R2StringChecksums = { [K in ChecksumName]?: string };
export type R2Checksums = { readonly [K in ChecksumName]?: ArrayBuffer } & { toJSON(): R2StringChecksums };
export type R2PutValue = ReadableStream | ArrayBuffer | ArrayBufferView | string | null | Blob;

/** What the sidecar holds. */
export interface Stored {
  key: string;
  version: string;
  size: number;
  etag: string;
  uploaded: number;
  httpMetadata: Omit<R2HTTPMetadata, 'cacheExpiry'> & { cacheExpiry?: number };
  customMetadata: Record<string, string>;
  checksums: R2StringChecksums;
  storageClass: string;
  data: string;
}
