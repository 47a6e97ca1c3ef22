import { Layout } from './layout.tsx';

export function SearchPage({
  query,
  horses,
  tooShort,
}: {
  query: string;
  horses: { id: number; runner_name: string; country: string }[];
  tooShort: boolean;
}) {
  return (
    <Layout title="Find a horse" signedIn>
      <h1>Find a horse</h1>
      {tooShort ? (
        <p>Type at least 3 letters of the horse’s name.</p>
      ) : horses.length === 0 ? (
        <p>{`No horse matches “${query}”.`}</p>
      ) : (
        <ul class="hits">
          {horses.map((h) => (
            <li>
              <a href={`/form/runner/${h.id}/`}>{h.runner_name}</a> <span class="meta">{h.country}</span>
            </li>
          ))}
        </ul>
      )}
    </Layout>
  );
}

/** The search page (without script). */
export const searchPage = (props: Parameters<typeof SearchPage>[0]) => <SearchPage {...props} />;
