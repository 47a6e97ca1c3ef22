import { DurableObject } from 'cloudflare:workers';

/**
 * One signed-in browser session, keyed by its id's hash (`idFromName(<hash>)`): the server-side row
 * of a session cookie for the services without a D1 table for it (the form service, the auth
 * dashboard). Only a session that is kept here is accepted, so logging out (`take`/`end`) makes
 * the cookie worthless at once, on every isolate. The alarm removes the row when the session expires.
 */
export class LiveSession extends DurableObject {
  /** Keeps the session's row (what the service stores about it) until `expiresAt`. */
  async keep(row: Record<string, unknown>, expiresAt: number): Promise<void> {
    this.ctx.storage.kv.put('row', row);
    this.ctx.storage.kv.put('expiresAt', expiresAt);
    await this.ctx.storage.setAlarm(expiresAt);
  }

  /** The row while the session is live. */
  row(): Record<string, unknown> | undefined {
    return this.isLive() ? this.ctx.storage.kv.get<Record<string, unknown>>('row') : undefined;
  }

  /** Ends the session, answering its row when it was live. */
  async take(): Promise<Record<string, unknown> | undefined> {
    const row = this.row();
    await this.end();
    return row;
  }

  private isLive(): boolean {
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
