import * as OTPAuth from 'otpauth';

/**
 * A source of TOTP codes that a test file has not used yet: the authentication service accepts
 * each step once per account (±1 step of now), so a second sign-in within 30 s takes the next
 * step. Once the window is used up, one of the account's single-use backup codes. The previous
 * step is taken only in the first 20 s of the current one.
 * `fromCurrentStep` never takes the previous step: for a code a slow page may submit only after
 * that step has ended (a browser sign-in).
 */
export function freshCodes<Name extends string>(
  totpSecret: (name: Name) => string,
  backupCodes: Record<Name, string[]>,
  options: { fromCurrentStep?: boolean } = {},
): (name: Name) => string {
  const lastStep = new Map<Name, number>();
  return (name) => {
    const time = Date.now();
    const now = Math.floor(time / 30_000);
    // The previous step stays valid only until the current one ends: not taken in its last 10 s,
    // where a sign-in slowed by a loaded machine could reach the server after that.
    const earliest = options.fromCurrentStep || time % 30_000 >= 20_000 ? now : now - 1;
    const step = Math.max(earliest, (lastStep.get(name) ?? -Infinity) + 1);
    if (step > now + 1) {
      const codes = backupCodes[name];
      // Random, so two files signing the same account in do not reach for the same code.
      const code = codes.splice(Math.floor(Math.random() * codes.length), 1)[0];
      if (!code) throw new Error(`${name}: no unused TOTP step or backup code left`);
      return code;
    }
    lastStep.set(name, step);
    return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(totpSecret(name)) }).generate({ timestamp: step * 30_000 });
  };
}

/**
 * The development account's backup codes that the Deno host prints on its first start (its
 * `• seed auth:` line, deno/host/seed.ts): all ten, or an error naming what it printed instead.
 */
export function printedBackupCodes(output: string): string[] {
  const line = /backup codes \(each works once[^)]*\): ([^\n]*)/.exec(output)?.[1] ?? '';
  const codes = line.match(/\b[a-z0-9]{4}-[a-z0-9]{4}\b/g) ?? [];
  if (codes.length !== 10) throw new Error(`expected the demo account's ten backup codes in the seed output:\n${output.slice(-3000)}`);
  return codes;
}
