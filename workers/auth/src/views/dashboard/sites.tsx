import { type Site, siteRoles, type User } from '../../accounts.ts';
import { CsrfField, Page } from './layout.tsx';

const SitesPage = (props: { admin: User; csrfToken: string; sites: Site[] }) => (
  <Page title="Sites" admin={props.admin}>
    <table>
      <thead>
        <tr>
          <th>Site name</th>
          <th>Address and roles</th>
          <th></th>
        </tr>
      </thead>
      <tbody>
        {props.sites.map((site) => (
          <tr data-site={site.siteName}>
            <td>
              <code>{site.siteName}</code>
            </td>
            <td>
              <form method="post" action={`/admin/sites/${site.id}/`}>
                <CsrfField token={props.csrfToken} />
                <input name="site_url" value={site.siteUrl} aria-label="site address" size={36} />{' '}
                <input name="roles" value={(siteRoles(site) ?? []).join(', ')} placeholder="global roles" aria-label="roles" />{' '}
                <button type="submit">Save</button>
              </form>
            </td>
            <td>
              <form method="post" action={`/admin/sites/${site.id}/delete/`}>
                <CsrfField token={props.csrfToken} />
                <button type="submit">Delete</button>
              </form>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
    <h2>Register a site</h2>
    <form method="post" action="/admin/sites/">
      <CsrfField token={props.csrfToken} />
      <label>
        Site name <input name="site_name" required maxlength={200} />
      </label>
      <label>
        Site address <input name="site_url" type="url" required placeholder="https://cms.example.com" />
      </label>
      <label>
        Role vocabulary (comma-separated; empty for admin, developer, user) <input name="roles" />
      </label>
      <button type="submit">Register site</button>
    </form>
  </Page>
);

/** The registered sites, each with its address and roles to edit, and the form that registers one. */
export const sitesPage = (props: { admin: User; csrfToken: string; sites: Site[] }) => <SitesPage {...props} />;
