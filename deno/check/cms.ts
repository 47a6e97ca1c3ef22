/// <reference types="../../node_modules/@cloudflare/workers-types/index.d.ts" />
/// <reference path="../../workers/cms/worker-configuration.d.ts" />
export * from '../../workers/cms/src/index.ts';
