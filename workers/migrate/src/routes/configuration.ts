import { Hono } from 'hono';
import { z } from 'zod';
import type { MigrateContext, MigrateEnv } from '../context.ts';
import {
  createConfiguration,
  deleteConfiguration,
  findConfiguration,
  hostAllowed,
  listConfigurations,
  setActiveConfiguration,
  syncJobNamesOf,
  updateConfiguration,
  type ConfigurationInput,
} from '../configurations.ts';
import { guard } from '../guards.ts';
import { form, formBody, intId, parsed, text } from '../input.ts';
import { ConfigurationDeletePage, ConfigurationForm, ConfigurationList, type FormValues } from '../views/configuration.tsx';
import { notFoundPage } from '../views/errors.tsx';

/** Configuration: the source database connections (spec 002 A, Configuration). */
export const configuration = new Hono<MigrateEnv>();

export const hostName = text(253)
  .trim()
  .min(1, 'is required')
  .regex(/^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/, 'must be a host name or IPv4 address');

export const ConfigurationFields = z.object({
  Name: text(100).trim().default(''),
  Host: hostName,
  Port: z.coerce.number().int().min(1, 'must be 1–65535').max(65_535, 'must be 1–65535'),
  Database: text(63).trim().min(1, 'is required'),
  Username: text(63).trim().min(1, 'is required'),
  Password: text(1024).default(''),
});

type Errors = Record<string, string>;

/** The posted fields, the values to show again (never the password) and the problems found. */
async function readForm(c: MigrateContext, passwordRequired: boolean) {
  const body = await formBody(c);
  const values: FormValues = Object.fromEntries(
    ['Id', 'Name', 'Host', 'Port', 'Database', 'Username'].map((k) => [
      k,
      typeof body[k] === 'string'
        ? String(body[k])
            .replace(/\u0000/g, '')
            .slice(0, 300)
        : '',
    ]),
  );
  const errors: Errors = {};
  const result = ConfigurationFields.safeParse(body);
  if (!result.success) {
    for (const issue of result.error.issues) errors[String(issue.path[0])] ??= issue.message;
    return { values, errors, input: undefined };
  }
  const data = result.data;
  if (passwordRequired && !data.Password) errors.Password = 'is required';
  if (!hostAllowed(c.var.config.MIGRATE_ALLOWED_HOSTS, data.Host, data.Port))
    errors.Host = `${data.Host}:${data.Port} is not on the allowed hosts list`;
  const input: ConfigurationInput = {
    name: data.Name || `${data.Username}@${data.Host}/${data.Database}`,
    host: data.Host.toLowerCase(),
    port: data.Port,
    database: data.Database,
    username: data.Username,
    password: data.Password,
  };
  return { values, errors, input: Object.keys(errors).length ? undefined : input };
}

configuration.get('/Configuration', guard.read('any'), async (c) => {
  const rows = await listConfigurations(c.var.db);
  // After a delete: which configuration became active, named from the list (the address carries an id only).
  const activated = c.req.query('activated');
  const made = activated ? rows.find((r) => String(r.id) === activated && r.isActive) : undefined;
  const notice =
    c.req.query('deleted') === '1'
      ? `The configuration was deleted.${made ? ` ${made.name} is now the active configuration.` : ''}`
      : undefined;
  return c.html(ConfigurationList({ csrf: c.var.csrfToken, user: c.var.user, rows, allowed: c.var.config.MIGRATE_ALLOWED_HOSTS, notice }));
});
// Conventional routing: /Configuration/Index is the list too.
configuration.get('/Configuration/Index', guard.read('any'), (c) => c.redirect('/Configuration', 302));

configuration.get('/Configuration/Create', guard.read('operator'), (c) =>
  c.html(ConfigurationForm({ csrf: c.var.csrfToken, user: c.var.user, mode: 'create', values: { Port: '5432' }, errors: {} })),
);

configuration.post('/Configuration/Create', guard.write('operator'), async (c) => {
  const { values, errors, input } = await readForm(c, true);
  if (!input) return c.html(ConfigurationForm({ csrf: c.var.csrfToken, user: c.var.user, mode: 'create', values, errors }), 400);
  await createConfiguration(c, input);
  return c.redirect('/Configuration', 302);
});

configuration.get('/Configuration/Edit/:id', guard.read('operator'), async (c) => {
  const id = intId.safeParse(c.req.param('id'));
  const row = id.success ? await findConfiguration(c.var.db, id.data) : undefined;
  if (!row) return notFoundPage(c, 'There is no such configuration.');
  const values: FormValues = {
    Id: String(row.id),
    Name: row.name,
    Host: row.host,
    Port: String(row.port),
    Database: row.database,
    Username: row.username,
  };
  return c.html(ConfigurationForm({ csrf: c.var.csrfToken, user: c.var.user, mode: 'edit', values, errors: {} }));
});

configuration.post('/Configuration/Edit', guard.write('operator'), async (c) => {
  const id = intId.safeParse((await formBody(c)).Id);
  const { values, errors, input } = await readForm(c, false);
  if (!id.success) errors.Id = 'must be a configuration id';
  if (!input || !id.success)
    return c.html(ConfigurationForm({ csrf: c.var.csrfToken, user: c.var.user, mode: 'edit', values, errors }), 400);
  if (!(await updateConfiguration(c, id.data, input))) return notFoundPage(c, 'There is no such configuration.');
  return c.redirect('/Configuration', 302);
});

const IdForm = z.object({ id: intId });

configuration.get('/Configuration/Delete/:id', guard.read('admin'), async (c) => {
  const id = intId.safeParse(c.req.param('id'));
  const row = id.success ? await findConfiguration(c.var.db, id.data) : undefined;
  if (!row) return notFoundPage(c, 'There is no such configuration.');
  const [syncJobs, all] = await Promise.all([syncJobNamesOf(c.var.db, row.id), listConfigurations(c.var.db)]);
  return c.html(ConfigurationDeletePage({ csrf: c.var.csrfToken, user: c.var.user, row, syncJobs, others: all.length - 1 }));
});

configuration.post('/Configuration/Delete', guard.write('admin'), async (c) => {
  const { id } = await form(c, IdForm);
  const { deleted, activated } = await deleteConfiguration(c.var.db, id);
  if (!deleted) return notFoundPage(c, 'There is no such configuration.');
  return c.redirect(`/Configuration?deleted=1${activated ? `&activated=${activated.id}` : ''}`, 302);
});

configuration.post('/Configuration/SetActive', guard.write('operator'), async (c) => {
  const { id } = parsed(IdForm, await formBody(c), 'form');
  if (!(await setActiveConfiguration(c.var.db, id))) return notFoundPage(c, 'There is no such configuration.');
  return c.redirect('/Configuration', 302);
});
