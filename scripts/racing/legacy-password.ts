import { createHash, randomBytes } from 'node:crypto';
import { type Server, type Socket, connect, createServer } from 'node:net';

// A password check in front of the embedded legacy source database. PGlite's socket server takes
// any password, so nothing would show that a configuration with a wrong one fails; this front
// speaks PostgreSQL's startup exchange itself — MD5 password authentication, as a PostgreSQL
// server with `md5` in pg_hba.conf does — and only on success hands the connection over to the
// database behind it, byte for byte. A wrong password gets PostgreSQL's own error (28P01).

export type PasswordFront = { port: number; url: string; close(): Promise<void> };

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;
/** A startup packet longer than this is refused (PostgreSQL's own limit is 10,000 bytes). */
const MAX_STARTUP = 10_000;

const md5Hex = (data: Buffer | string) => createHash('md5').update(data).digest('hex');

/** What a client sends for `password` after an AuthenticationMD5Password with `salt`. */
export function md5PasswordResponse(user: string, password: string, salt: Buffer): string {
  return `md5${md5Hex(Buffer.concat([Buffer.from(md5Hex(password + user)), salt]))}`;
}

function message(type: string, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

/** A FATAL ErrorResponse as PostgreSQL words it. */
function fatal(code: string, text: string): Buffer {
  const field = (tag: string, value: string) => Buffer.concat([Buffer.from(tag, 'latin1'), Buffer.from(value, 'utf8'), Buffer.from([0])]);
  return message('E', Buffer.concat([field('S', 'FATAL'), field('V', 'FATAL'), field('C', code), field('M', text), Buffer.from([0])]));
}

function startupParameters(packet: Buffer): Map<string, string> {
  const parts = packet.subarray(8).toString('utf8').split('\u0000');
  const params = new Map<string, string>();
  for (let i = 0; i + 1 < parts.length && parts[i]; i += 2) params.set(parts[i]!, parts[i + 1]!);
  return params;
}

/**
 * Listens on `port` (0: any free one) on loopback and checks `user`/`password` before passing each
 * connection on to `upstream` (a PostgreSQL server that needs no password, or takes any).
 */
export async function startPasswordFront(options: {
  upstream: { host: string; port: number };
  user: string;
  password: string;
  database?: string;
  port?: number;
}): Promise<PasswordFront> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    handle(client);
  });

  function handle(client: Socket) {
    let buffered = Buffer.alloc(0);
    let salt: Buffer | null = null;
    let startup: Buffer | null = null;
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        if (!startup) {
          // Untyped packets first: SSL/GSS requests, a cancel request, then the startup message.
          if (buffered.length < 8) return;
          const length = buffered.readInt32BE(0);
          if (length < 8 || length > MAX_STARTUP) return void client.end(fatal('08P01', 'invalid startup packet length'));
          if (buffered.length < length) return;
          const packet = buffered.subarray(0, length);
          buffered = buffered.subarray(length);
          const code = packet.readInt32BE(4);
          if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
            client.write('N');
            continue;
          }
          if (code === CANCEL_REQUEST) {
            // Cancel requests carry no password: pass them on as they are.
            client.removeListener('data', onData);
            const upstream = connect(options.upstream.port, options.upstream.host, () => upstream.end(packet));
            upstream.on('error', () => undefined);
            client.end();
            return;
          }
          if (code !== PROTOCOL_3) return void client.end(fatal('0A000', 'unsupported frontend protocol'));
          startup = Buffer.from(packet);
          const user = startupParameters(startup).get('user') ?? '';
          if (user !== options.user) return void client.end(fatal('28P01', `password authentication failed for user "${user}"`));
          salt = randomBytes(4);
          const request = Buffer.alloc(8);
          request.writeInt32BE(5, 0);
          salt.copy(request, 4);
          client.write(message('R', request));
          continue;
        }
        // The password message: 'p', length, the response as a C string.
        if (buffered.length < 5) return;
        const length = buffered.readInt32BE(1);
        if (buffered[0] !== 0x70 || length < 5 || length > MAX_STARTUP)
          return void client.end(fatal('08P01', 'expected a password response'));
        if (buffered.length < 1 + length) return;
        const answer = buffered
          .subarray(5, 1 + length)
          .toString('utf8')
          .replace(/\u0000$/, '');
        const rest = buffered.subarray(1 + length);
        client.removeListener('data', onData);
        if (answer !== md5PasswordResponse(options.user, options.password, salt!)) {
          return void client.end(fatal('28P01', `password authentication failed for user "${options.user}"`));
        }
        handOver(client, startup, rest);
        return;
      }
    };
    client.on('data', onData);
  }

  /** Replays the startup message upstream, answers its own password request if any, then relays both ways. */
  function handOver(client: Socket, startup: Buffer, early: Buffer) {
    client.pause();
    const upstream = connect(options.upstream.port, options.upstream.host);
    upstream.setNoDelay(true);
    client.setNoDelay(true);
    sockets.add(upstream);
    upstream.on('close', () => {
      sockets.delete(upstream);
      client.destroy();
    });
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    client.on('end', () => upstream.end());
    upstream.write(startup);
    let pending = Buffer.alloc(0);
    const beforeAuthOk = (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 5) {
        const length = pending.readInt32BE(1);
        if (pending.length < 1 + length) return;
        const packet = pending.subarray(0, 1 + length);
        pending = pending.subarray(1 + length);
        if (packet[0] === 0x52 /* R */) {
          const code = packet.readInt32BE(5);
          if (code === 3) {
            upstream.write(message('p', Buffer.from(`${options.password}\u0000`)));
            continue;
          }
          if (code === 5) {
            upstream.write(
              message('p', Buffer.from(`${md5PasswordResponse(options.user, options.password, packet.subarray(9, 13))}\u0000`)),
            );
            continue;
          }
        }
        // AuthenticationOk (the client already answered our request) or an error: from here on, relay.
        upstream.removeListener('data', beforeAuthOk);
        client.write(packet);
        if (pending.length) client.write(pending);
        upstream.pipe(client);
        if (early.length) upstream.write(early);
        client.pipe(upstream);
        client.resume();
        return;
      }
    };
    upstream.on('data', beforeAuthOk);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('password front: no TCP address');
  const enc = encodeURIComponent;
  return {
    port: address.port,
    url: `postgres://${enc(options.user)}:${enc(options.password)}@127.0.0.1:${address.port}/${enc(options.database ?? 'postgres')}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
