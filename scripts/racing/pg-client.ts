import pg from 'pg';

/** Runs `use` on the given client, or on a new connection to the given URL that it then closes. */
export async function withClient<T>(target: pg.ClientBase | string, use: (client: pg.ClientBase) => Promise<T>): Promise<T> {
  if (typeof target !== 'string') return use(target);
  const client = new pg.Client({ connectionString: target });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}
