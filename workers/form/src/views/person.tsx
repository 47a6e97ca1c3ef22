import type { Tab } from '../params.ts';
import type { Person, PersonKind } from '../queries.ts';
import { MAX_RUNS, type Run } from '../runs.ts';
import type { FormStats } from '../stats.ts';
import { FormTabs } from './form-parts.tsx';
import { Layout } from './layout.tsx';

export function PersonPage({
  kind,
  person,
  runs,
  stats,
  activeTab,
}: {
  kind: PersonKind;
  person: Person;
  runs: Run[];
  stats: FormStats;
  activeTab: Tab;
}) {
  const role = kind === 'jockey' ? (person.apprentice ? 'Apprentice jockey' : 'Jockey') : 'Trainer';
  return (
    <Layout title={person.name} signedIn>
      <header class="entity">
        <h1 data-person-name>{person.name}</h1>
        <p>{`${role} · ${person.state}`}</p>
        <p class="note">Statistics cover the runs listed: the latest {MAX_RUNS} at most.</p>
      </header>
      <FormTabs active={activeTab} hrefFor={(tab) => `/form/${kind}/${person.id}/?tab=${tab}`} runs={runs} stats={stats} show={kind} />
    </Layout>
  );
}

/** A jockey's or trainer's page: profile, runs and stats. */
export const personProfilePage = (props: Parameters<typeof PersonPage>[0]) => <PersonPage {...props} />;
