import type { SessionUser } from '../context.ts';
import type { ConfigurationView } from '../configurations.ts';
import { Layout } from './layout.tsx';

export function HomePage({ csrf, user, active }: { csrf: string; user: SessionUser; active: ConfigurationView | undefined }) {
  return (
    <Layout title="Home" csrf={csrf} user={user}>
      <h1>Data migration</h1>
      <p>
        Copy racing data from an old system's PostgreSQL database into the racing database, table by table, matching rows that already
        exist.
      </p>
      {active ? (
        <p data-active-configuration="true">
          Active source: <strong>{active.name}</strong> ({active.host}:{active.port}/{active.database}).
        </p>
      ) : (
        <p data-active-configuration="false" class="flash error">
          There is no active configuration. <a href="/Configuration">Set one up</a> before migrating.
        </p>
      )}
      <ul class="links">
        <li>
          <a href="/Migration/TableSelection">Start a migration</a>
        </li>
        <li>
          <a href="/Session">Earlier sessions</a>
        </li>
        <li>
          <a href="/Configuration">Configurations</a>
        </li>
      </ul>
    </Layout>
  );
}
