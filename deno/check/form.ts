/// <reference types="../../node_modules/@cloudflare/workers-types/index.d.ts" />
/// <reference path="../../workers/form/worker-configuration.d.ts" />
export * from '../../workers/form/src/index.ts';
