import qrcode from 'qrcode-generator';
import { hashBackupCode, encryptTotpSecret, newBackupCodes, newTotpSecret, otpauthUri } from './totp.ts';

/** What enrolling an account in 2FA produces: the secret to store (sealed) and what to show once. */
export interface Enrolment {
  /** base32; shown once, never stored in the clear */
  secret: string;
  sealedSecret: string;
  otpauthUri: string;
  /** shown once */
  backupCodes: string[];
  backupCodeHashes: string[];
}

export async function enrol(email: string, issuer: string, keyBase64: string, secret = newTotpSecret()): Promise<Enrolment> {
  const backupCodes = newBackupCodes();
  return {
    secret,
    sealedSecret: await encryptTotpSecret(secret, email, keyBase64),
    otpauthUri: otpauthUri(issuer, email, secret),
    backupCodes,
    backupCodeHashes: await Promise.all(backupCodes.map(hashBackupCode)),
  };
}

/** The otpauth URI as an SVG QR code for an authenticator app to scan. */
export function qrSvg(text: string): string {
  const qr = qrcode(0, 'M');
  qr.addData(text);
  qr.make();
  return qr.createSvgTag({ cellSize: 4, margin: 4, scalable: true });
}

export function qrAscii(text: string): string {
  const qr = qrcode(0, 'L');
  qr.addData(text);
  qr.make();
  return qr.createASCII(1, 2);
}
