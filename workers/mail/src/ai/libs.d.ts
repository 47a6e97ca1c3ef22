// Type declarations of the plain-JavaScript text libraries (they ship none).
declare module 'planer' {
  const planer: { extractFromPlain(body: string): string; extractFrom(body: string, contentType?: string): string };
  export default planer;
}
declare module 'talon/lib/bruteforce.js' {
  const bruteforce: { extractSignature(body: string): { text: string; signature: string | null } };
  export default bruteforce;
}
