import { DurableObject } from 'cloudflare:workers';

/**
 * One signed-in browser session, keyed by its random id (`idFromName(<session id>)`): the
 * server-side half of a session cookie. The cookie is signed, but only a session that is open
 * here is accepted, so logging out (`end`) makes the cookie worthless at once, on every isolate.
 * The alarm removes the record when the session expires.
 */
export class LiveSession extends DurableObject {
  async open(expiresAt: number): Promise<void> {
    this.ctx.storage.kv.put('expiresAt', expiresAt);
    await this.ctx.storage.setAlarm(expiresAt);
  }

  isLive(): boolean {
    const expiresAt = this.ctx.storage.kv.get<number>('expiresAt');
    return expiresAt !== undefined && expiresAt > Date.now();
  }

  async end(): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
  }

  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }
}
