import { createHash, randomBytes } from 'node:crypto';

/**
 * Identifiers shaped like Exchange's: base64url strings. Regular ids (`AAMkA…`) name an item in
 * its current folder, so a move gives a new one; immutable ids (`AAkAL…`) never change.
 */
export function immutableItemId(seed: string): string {
  return 'AAkALg' + digest('immutable:' + seed, 40);
}

export function restItemId(seed: string): string {
  return 'AAMkAG' + digest('rest:' + seed, 52);
}

export function folderId(seed: string): string {
  return 'AAMkAGfold' + digest('folder:' + seed, 36) + 'AAA=';
}

export function conversationId(seed: string): string {
  return 'AAQkAGcnv' + digest('conversation:' + seed, 36) + '=';
}

export function guid(seed?: string): string {
  const hex = seed === undefined ? randomBytes(16).toString('hex') : createHash('sha256').update(seed).digest('hex').slice(0, 32);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

function digest(input: string, length: number): string {
  return createHash('sha512').update(input).digest('base64url').slice(0, length);
}
