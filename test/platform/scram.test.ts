import { env } from 'cloudflare:test';
import { describe, expect, it, vi } from 'vitest';
import { openRacingDb } from '#shared/pg.ts';
import { parseServerFirst, scramClientFinal } from '#shared/scram.ts';

// The client's half of a SCRAM-SHA-256 login (workers/shared/scram.ts), checked against the
// example exchange of RFC 7677 §3 (user "user", password "pencil"), and the racing client's SASL
// step built on it (workers/shared/pg.ts). PostgreSQL sends "n=*" as the user name; the RFC's
// example names its user, which only changes the client-first-message-bare that goes in.

const CLIENT_NONCE = 'rOprNGfwEbeRWgbNEkqO';
const SERVER_FIRST = 'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096';
const CLIENT_FINAL = 'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=';
const SERVER_SIGNATURE = '6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=';

describe('SCRAM-SHA-256, the client side', () => {
  it('answers RFC 7677’s example with its client-final-message and expects its server signature', async () => {
    const server = parseServerFirst(SERVER_FIRST, CLIENT_NONCE);
    expect(server).toMatchObject({ nonce: `${CLIENT_NONCE}%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0`, iterations: 4096 });
    expect(await scramClientFinal('pencil', `n=user,r=${CLIENT_NONCE}`, SERVER_FIRST, server)).toEqual({
      response: CLIENT_FINAL,
      serverSignature: SERVER_SIGNATURE,
    });
  });

  it('a wrong password gives another proof', async () => {
    const server = parseServerFirst(SERVER_FIRST, CLIENT_NONCE);
    const wrong = await scramClientFinal('pencil2', `n=user,r=${CLIENT_NONCE}`, SERVER_FIRST, server);
    expect(wrong.response).not.toBe(CLIENT_FINAL);
    expect(wrong.serverSignature).not.toBe(SERVER_SIGNATURE);
  });

  it.each([
    ['a nonce that is not the client’s', 'r=other%abc,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096', 'does not start with client nonce'],
    ['the client’s nonce alone', `r=${CLIENT_NONCE},s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096`, 'too short'],
    ['no salt', `r=${CLIENT_NONCE}x,i=4096`, 'salt missing'],
    ['a salt that is not base64', `r=${CLIENT_NONCE}x,s=***,i=4096`, 'salt missing/not base64'],
    ['no iteration count', `r=${CLIENT_NONCE}x,s=W22ZaJ0SNY7soEsUEjb6gQ==`, 'iteration count'],
    ['an iteration count of 0', `r=${CLIENT_NONCE}x,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=0`, 'iteration count'],
    ['a malformed attribute', `rr,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096`, 'invalid attribute'],
  ])('refuses a server-first-message with %s', (_, message, error) => {
    expect(() => parseServerFirst(message, CLIENT_NONCE)).toThrow(error);
  });
});

/** The racing client's SASL step, driven by hand: what it sends, and the session it leaves for the server's final message. */
function racingClient() {
  const pool = openRacingDb({
    ...env,
    DATABASE_URL: 'postgres://user:pencil@db.example:5432/racing',
    PG_CONNECT_TIMEOUT_MS: 5_000,
    PG_QUERY_TIMEOUT_MS: 5_000,
  });
  const client = new pool.$client.Client({ connectionString: 'postgres://user:pencil@db.example:5432/racing' });
  const sent: string[] = [];
  const errors: unknown[] = [];
  client.connection.sendSCRAMClientFinalMessage = (response: string) => sent.push(response);
  client.connection.on('error', (err: unknown) => errors.push(err));
  client.saslSession = {
    mechanism: 'SCRAM-SHA-256',
    clientNonce: CLIENT_NONCE,
    response: `n,,n=user,r=${CLIENT_NONCE}`,
    message: 'SASLInitialResponse',
  };
  return { client, sent, errors };
}

describe('the racing client’s SCRAM step', () => {
  it('sends the client-final-message and keeps the server signature the driver then checks, with one PBKDF2 call', async () => {
    const { client, sent, errors } = racingClient();
    const derive = vi.spyOn(crypto.subtle, 'deriveBits');
    const sign = vi.spyOn(crypto.subtle, 'sign');
    try {
      await client._handleAuthSASLContinue({ data: SERVER_FIRST });
      // The driver's own step signs 4,096 times (one HMAC round per iteration, each awaited).
      expect(derive).toHaveBeenCalledTimes(1);
      expect(sign.mock.calls.length).toBeLessThanOrEqual(4);
    } finally {
      derive.mockRestore();
      sign.mockRestore();
    }
    expect(sent).toEqual([CLIENT_FINAL]);
    expect(errors).toEqual([]);
    expect(client.saslSession).toMatchObject({ message: 'SASLResponse', serverSignature: SERVER_SIGNATURE, response: CLIENT_FINAL });
  });

  it('a bad server message becomes the connection’s error (the connect fails), never an unhandled rejection', async () => {
    const { client, sent, errors } = racingClient();
    await client._handleAuthSASLContinue({ data: 'r=other,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096' });
    expect(sent).toEqual([]);
    expect(String(errors[0])).toContain('server nonce does not start with client nonce');
  });
});
