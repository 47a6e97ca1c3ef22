/// <reference types="../../node_modules/@cloudflare/workers-types/index.d.ts" />
/// <reference path="../../workers/auth/worker-configuration.d.ts" />
export * from '../../workers/auth/src/index.ts';
