/**
 * The six services: the host label the router picks each by, the service-binding name it
 * forwards through, and the local port the dev runner serves it on.
 */
export const SERVICES = {
  auth: { binding: 'AUTH', port: 8701, title: 'Authentication service' },
  cms: { binding: 'CMS', port: 8702, title: 'Content management API' },
  stats: { binding: 'STATS', port: 8703, title: 'Meeting statistics API' },
  form: { binding: 'FORM', port: 8704, title: 'Runner form service' },
  migrate: { binding: 'MIGRATE', port: 8705, title: 'Migration web app' },
  mail: { binding: 'MAIL', port: 8706, title: 'Mail assistant' },
} as const;

export type ServiceName = keyof typeof SERVICES;

export const ROUTER_PORT = 8787;

export function isServiceName(label: string): label is ServiceName {
  return Object.hasOwn(SERVICES, label);
}
