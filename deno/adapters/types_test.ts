// Type-level check that the adapters fit @cloudflare/workers-types where the project's code meets
// them (what is left out is listed in README.md); the test itself only has to compile.
import type * as CF from '../../node_modules/@cloudflare/workers-types/index.ts';
import type { D1Database } from './d1.ts';
import type { R2Object, R2ObjectBody } from './r2.ts';
import type { DurableObjectState } from './durable-objects.ts';

type Fits<Adapter extends Cloudflare, Cloudflare> = Adapter;

type NotOffered = 'getCurrentBookmark' | 'getBookmarkForTime' | 'onNextSessionRestoreBookmark' | 'sql';
type SqlClasses = 'Cursor' | 'Statement';

// Deno's Headers, Blob and streams are not the Workers types' ones, so R2's methods that take or
// give them are left to r2_test.ts.
export type Checked = [
  Fits<D1Database, CF.D1Database>,
  Fits<Omit<R2Object, 'writeHttpMetadata'>, Omit<CF.R2Object, 'writeHttpMetadata'>>,
  Fits<Omit<R2ObjectBody, 'writeHttpMetadata' | 'body' | 'blob'>, Omit<CF.R2ObjectBody, 'writeHttpMetadata' | 'body' | 'blob'>>,
  Fits<Omit<DurableObjectState['storage']['sql'], SqlClasses>, Omit<CF.SqlStorage, SqlClasses>>,
  Fits<DurableObjectState['storage']['kv'], CF.SyncKvStorage>,
  Fits<Omit<DurableObjectState['storage'], 'sql'>, Omit<CF.DurableObjectStorage, NotOffered>>,
  Fits<DurableObjectState, Pick<CF.DurableObjectState, 'id' | 'waitUntil' | 'blockConcurrencyWhile' | 'abort'>>,
];

Deno.test('types: the adapters fit the Workers types (checked when this file compiles)', () => {});
