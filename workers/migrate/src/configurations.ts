import { asc, desc, eq, getTableColumns, sql } from 'drizzle-orm';
import { configurations, syncJobs } from '#d1/migrate/schema.ts';
import { hostAllowed } from '#shared/config.ts';
import { HttpError } from '#shared/http-error.ts';
import type { MigrateContext, MigrateDb, MigrateServices } from './context.ts';
import type { Connection, EngineEnv } from './engine/types.ts';
import { openPassword, sealPassword } from './sealing.ts';

export type ConfigurationRow = typeof configurations.$inferSelect;
/** What a page may see of a configuration: never the password. */
export type ConfigurationView = Omit<ConfigurationRow, 'passwordSealed'>;

export type ConfigurationInput = { name: string; host: string; port: number; database: string; username: string; password: string };

/** What the engine reads from this Worker's validated config. */
export function engineEnv(c: MigrateServices): EngineEnv {
  const { config } = c.var;
  return {
    DATABASE_URL: config.DATABASE_URL,
    PG_WS_PROXY: config.PG_WS_PROXY,
    MIGRATE_ALLOWED_HOSTS: config.MIGRATE_ALLOWED_HOSTS.join(','),
  };
}

/** True when `host:port` is on MIGRATE_ALLOWED_HOSTS (an entry `host` allows every port): the shared check. */
export { hostAllowed };

export function assertHostAllowed(c: MigrateServices, host: string, port: number): void {
  if (!hostAllowed(c.var.config.MIGRATE_ALLOWED_HOSTS, host, port)) {
    throw new HttpError(
      400,
      'host_not_allowed',
      `The host ${host}:${port} is not on this service's allowed hosts list (MIGRATE_ALLOWED_HOSTS).`,
    );
  }
}

const { passwordSealed: _omit, ...viewColumns } = getTableColumns(configurations);

export function listConfigurations(db: MigrateDb): Promise<ConfigurationView[]> {
  return db.select(viewColumns).from(configurations).orderBy(desc(configurations.isActive), configurations.name, configurations.id).all();
}

export function findConfiguration(db: MigrateDb, id: number): Promise<ConfigurationView | undefined> {
  return db.select(viewColumns).from(configurations).where(eq(configurations.id, id)).get();
}

export function activeConfiguration(db: MigrateDb): Promise<ConfigurationView | undefined> {
  return db.select(viewColumns).from(configurations).where(eq(configurations.isActive, true)).get();
}

export async function createConfiguration(c: MigrateContext, input: ConfigurationInput): Promise<number> {
  const { db, config } = c.var;
  const passwordSealed = await sealPassword(config.CONFIG_ENCRYPTION_KEY, input, input.password);
  const row = await db
    .insert(configurations)
    .values({ name: input.name, host: input.host, port: input.port, database: input.database, username: input.username, passwordSealed })
    .returning({ id: configurations.id })
    .get();
  // The first configuration is the active one.
  await db
    .update(configurations)
    .set({ isActive: true })
    .where(sql`${configurations.id} = ${row.id} and not exists (select 1 from configurations where is_active = 1)`)
    .run();
  return row.id;
}

/** An empty password keeps the stored one (re-sealed when the address or user changed). False when no such row. */
export async function updateConfiguration(c: MigrateContext, id: number, input: ConfigurationInput): Promise<boolean> {
  const { db, config } = c.var;
  const existing = await db.select().from(configurations).where(eq(configurations.id, id)).get();
  if (!existing) return false;
  const password = input.password || (await openPassword(config.CONFIG_ENCRYPTION_KEY, existing, existing.passwordSealed));
  const passwordSealed = await sealPassword(config.CONFIG_ENCRYPTION_KEY, input, password);
  await db
    .update(configurations)
    .set({
      name: input.name,
      host: input.host,
      port: input.port,
      database: input.database,
      username: input.username,
      passwordSealed,
      updatedAt: Date.now(),
    })
    .where(eq(configurations.id, id))
    .run();
  return true;
}

/** The names of the sync jobs that go with a configuration when it is deleted (their rows cascade). */
export async function syncJobNamesOf(db: MigrateDb, id: number): Promise<string[]> {
  const rows = await db
    .select({ name: syncJobs.name })
    .from(syncJobs)
    .where(eq(syncJobs.configId, id))
    .orderBy(asc(syncJobs.name), asc(syncJobs.id))
    .all();
  return rows.map((r) => r.name);
}

/**
 * Deletes a configuration (its sync jobs cascade) and, when it was the active one, makes the most
 * recently used of the rest active (latest wizard session, else latest edit or activation), in one
 * batch: one configuration stays active while any exists. `activated`: the one made active, if any.
 */
export async function deleteConfiguration(
  db: MigrateDb,
  id: number,
): Promise<{ deleted: boolean; activated: ConfigurationView | undefined }> {
  const lastUsed = sql`max(coalesce((select max(s.created_at) from migration_sessions s where s.config_id = c.id), 0), c.updated_at)`;
  const [deleted, activated] = await db.batch([
    db.delete(configurations).where(eq(configurations.id, id)).returning({ id: configurations.id }),
    db
      .update(configurations)
      .set({ isActive: true, updatedAt: Date.now() })
      .where(
        sql`${configurations.id} = (select c.id from configurations c order by ${lastUsed} desc, c.id desc limit 1) and not exists (select 1 from configurations where is_active = 1)`,
      )
      .returning(viewColumns),
  ]);
  return { deleted: deleted.length > 0, activated: activated[0] };
}

/** Makes one configuration the active one, in one batch (D1 runs a batch as a transaction). */
export async function setActiveConfiguration(db: MigrateDb, id: number): Promise<boolean> {
  const exists = await db.select({ id: configurations.id }).from(configurations).where(eq(configurations.id, id)).get();
  if (!exists) return false;
  await db.batch([
    db.update(configurations).set({ isActive: false }).where(eq(configurations.isActive, true)),
    db.update(configurations).set({ isActive: true, updatedAt: Date.now() }).where(eq(configurations.id, id)),
  ]);
  return true;
}

/** A configuration's connection with its password opened, after the allow-list check. */
export async function connectionOf(c: MigrateServices, id: number): Promise<Connection> {
  const row = await c.var.db.select().from(configurations).where(eq(configurations.id, id)).get();
  if (!row) throw new HttpError(404, 'not_found', `There is no configuration ${id}.`);
  assertHostAllowed(c, row.host, row.port);
  const password = await openPassword(c.var.config.CONFIG_ENCRYPTION_KEY, row, row.passwordSealed);
  return { host: row.host, port: row.port, database: row.database, username: row.username, password };
}

/** The active configuration and its connection; 400 when there is none. */
export async function activeConnection(c: MigrateContext): Promise<{ config: ConfigurationView; conn: Connection }> {
  const config = await activeConfiguration(c.var.db);
  if (!config) throw new HttpError(400, 'no_active_configuration', 'There is no active configuration: create one and set it active first.');
  return { config, conn: await connectionOf(c, config.id) };
}
