import { raw } from 'hono/html';
import type { Site, User } from '../../accounts.ts';
import { type Enrolment, qrSvg } from '../../enrolment.ts';
import { CsrfField, Page } from './layout.tsx';

const AccountsPage = (props: { admin: User; csrfToken: string; accounts: User[]; sites: Pick<Site, 'id' | 'siteName'>[] }) => (
  <Page title="Accounts" admin={props.admin}>
    <table>
      <thead>
        <tr>
          <th>E-mail</th>
          <th>Name</th>
          <th>Role</th>
          <th>2FA</th>
          <th>Status</th>
        </tr>
      </thead>
      <tbody>
        {props.accounts.map((user) => (
          <tr data-account={user.email}>
            <td>{user.email}</td>
            <td>
              {user.firstName} {user.lastName}
            </td>
            <td>{user.role}</td>
            <td>
              {user.totpSecret ? 'enrolled' : 'not enrolled'}
              <form method="post" action={`/admin/accounts/${user.id}/enrol/`}>
                <CsrfField token={props.csrfToken} />
                <button type="submit">{user.totpSecret ? 'Re-enrol' : 'Enrol'}</button>
              </form>
            </td>
            <td>
              {user.isActive ? 'active' : 'deactivated'}
              <form method="post" action={`/admin/accounts/${user.id}/active/`}>
                <CsrfField token={props.csrfToken} />
                <input type="hidden" name="active" value={user.isActive ? 'false' : 'true'} />
                <button type="submit">{user.isActive ? 'Deactivate' : 'Activate'}</button>
              </form>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
    <h2>Create an account</h2>
    <p>The account is enrolled in two-factor authentication at once: the next page shows its authenticator QR code and backup codes.</p>
    <form method="post" action="/admin/accounts/">
      <CsrfField token={props.csrfToken} />
      <label>
        E-mail <input name="email" type="email" required />
      </label>
      <label>
        First name <input name="first_name" />
      </label>
      <label>
        Last name <input name="last_name" />
      </label>
      <label>
        Role{' '}
        <select name="role">
          <option value="user">user</option>
          <option value="developer">developer</option>
          <option value="admin">admin</option>
        </select>
      </label>
      <label>
        Password (at least 12 characters) <input name="password" type="password" minlength={12} required autocomplete="new-password" />
      </label>
      <button type="submit">Create and enrol</button>
    </form>
    <h2>Set a password and role for one site</h2>
    <form method="post" action="/admin/credentials/">
      <CsrfField token={props.csrfToken} />
      <label>
        Account e-mail <input name="email" type="email" required />
      </label>
      <label>
        Site{' '}
        <select name="site_id">
          {props.sites.map((s) => (
            <option value={String(s.id)}>{s.siteName}</option>
          ))}
        </select>
      </label>
      <label>
        Password <input name="password" type="password" minlength={12} required autocomplete="new-password" />
      </label>
      <label>
        Role on the site (one of its vocabulary; empty for the account’s role) <input name="site_role" />
      </label>
      <button type="submit">Save credential</button>
    </form>
  </Page>
);

/** The accounts: their state and forms, the form that creates one and the per-site credential form. */
export const accountsPage = (props: { admin: User; csrfToken: string; accounts: User[]; sites: Pick<Site, 'id' | 'siteName'>[] }) => (
  <AccountsPage {...props} />
);

const EnrolmentPage = (props: { admin: User; email: string; enrolment: Enrolment }) => (
  <Page title={`Enrolment of ${props.email}`} admin={props.admin}>
    <p class="note">Shown once. Scan the code with an authenticator app, and hand the backup codes to the account holder.</p>
    <div id="qr" style="width:240px">
      {raw(qrSvg(props.enrolment.otpauthUri))}
    </div>
    <p>
      <code id="otpauth-uri">{props.enrolment.otpauthUri}</code>
    </p>
    <p>
      Secret: <code id="totp-secret">{props.enrolment.secret}</code>
    </p>
    <h2>Backup codes (each works once)</h2>
    <ul id="backup-codes">
      {props.enrolment.backupCodes.map((code) => (
        <li>
          <code>{code}</code>
        </li>
      ))}
    </ul>
    <p>
      <a href="/admin/accounts/">Back to accounts</a>
    </p>
  </Page>
);

/** An account's new enrolment, shown once: QR code, secret and backup codes. */
export const enrolmentPage = (admin: User, email: string, enrolment: Enrolment) => (
  <EnrolmentPage admin={admin} email={email} enrolment={enrolment} />
);
