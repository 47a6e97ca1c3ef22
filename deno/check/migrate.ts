/// <reference types="../../node_modules/@cloudflare/workers-types/index.d.ts" />
/// <reference path="../../workers/migrate/worker-configuration.d.ts" />
export * from '../../workers/migrate/src/index.ts';
