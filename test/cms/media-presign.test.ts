import { describe, expect, it } from 'vitest';
import { presignR2Put, presignS3, signUpload, verifyUpload } from '../../workers/cms/src/media/presign';

// AWS's published example of a presigned URL (Amazon S3 API reference, "Authenticating Requests:
// Using Query Parameters (AWS Signature Version 4)"): GET examplebucket/test.txt for 86400 s.
describe('SigV4 query signing', () => {
  it('reproduces the signature of the S3 documentation example', async () => {
    const url = await presignS3({
      method: 'GET',
      url: 'https://examplebucket.s3.amazonaws.com/test.txt',
      accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
      secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      region: 'us-east-1',
      expiresSeconds: 86400,
      datetime: '20130524T000000Z',
    });
    expect(url.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(url.searchParams.get('X-Amz-Credential')).toBe('AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request');
    expect(url.searchParams.get('X-Amz-Date')).toBe('20130524T000000Z');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('86400');
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('host');
    expect(url.searchParams.get('X-Amz-Signature')).toBe('aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404');
  });

  it('a different secret or date gives a different signature', async () => {
    const base = {
      method: 'GET' as const,
      url: 'https://examplebucket.s3.amazonaws.com/test.txt',
      accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
      region: 'us-east-1',
      expiresSeconds: 86400,
    };
    const a = await presignS3({ ...base, secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEX', datetime: '20130524T000000Z' });
    const b = await presignS3({ ...base, secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', datetime: '20130524T000001Z' });
    expect(a.searchParams.get('X-Amz-Signature')).not.toBe('aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404');
    expect(b.searchParams.get('X-Amz-Signature')).not.toBe('aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404');
  });
});

describe('R2 presigned PUT', () => {
  const credentials = { accountId: 'a1b2c3', bucket: 'racing-media', accessKeyId: 'R2KEYID', secretAccessKey: 'r2-secret-key' };
  const now = new Date('2026-05-01T10:00:00Z');

  it('is a path-style R2 address with a short expiry and the content type signed', async () => {
    const url = await presignR2Put(credentials, 'pending/photo/0b9f0e7e-3a8c-4a7a-9a0f-5d1c2b3a4e5f.jpg', 'image/jpeg', 600, now);
    expect(url.origin).toBe('https://a1b2c3.r2.cloudflarestorage.com');
    expect(url.pathname).toBe('/racing-media/pending/photo/0b9f0e7e-3a8c-4a7a-9a0f-5d1c2b3a4e5f.jpg');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('600');
    expect(url.searchParams.get('X-Amz-Date')).toBe('20260501T100000Z');
    expect(url.searchParams.get('X-Amz-Credential')).toBe('R2KEYID/20260501/auto/s3/aws4_request');
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('content-type;host');
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('binds the content type: another type signs differently', async () => {
    const key = 'pending/photo/0b9f0e7e-3a8c-4a7a-9a0f-5d1c2b3a4e5f.jpg';
    const jpeg = await presignR2Put(credentials, key, 'image/jpeg', 600, now);
    const png = await presignR2Put(credentials, key, 'image/png', 600, now);
    expect(jpeg.searchParams.get('X-Amz-Signature')).not.toBe(png.searchParams.get('X-Amz-Signature'));
  });
});

describe("the Worker's own upload signatures", () => {
  const secret = 'cms-test-session-secret-0123456789abcdef';
  const grant = {
    key: 'pending/photo/0b9f0e7e-3a8c-4a7a-9a0f-5d1c2b3a4e5f.jpg',
    contentType: 'image/jpeg',
    maxBytes: 1000,
    expires: 1_900_000_000,
  };

  it('verifies its own signature and nothing changed', async () => {
    const sig = await signUpload(secret, grant);
    expect(await verifyUpload(secret, grant, sig)).toBe(true);
    expect(await verifyUpload(secret, { ...grant, contentType: 'image/png' }, sig)).toBe(false);
    expect(await verifyUpload(secret, { ...grant, maxBytes: 1001 }, sig)).toBe(false);
    expect(await verifyUpload(secret, { ...grant, expires: grant.expires + 1 }, sig)).toBe(false);
    expect(await verifyUpload(secret, { ...grant, key: grant.key.replace('.jpg', '.png') }, sig)).toBe(false);
    expect(await verifyUpload(`${secret}x`, grant, sig)).toBe(false);
    expect(await verifyUpload(secret, grant, 'not-hex')).toBe(false);
  });
});
