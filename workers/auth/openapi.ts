import { writeFileSync } from 'node:fs';
import { createAuthApp, describeApi } from './src/app.ts';

// `npx tsx workers/auth/openapi.ts` rewrites openapi.json from the routes' own schemas;
// test/auth/openapi.test.ts fails while the checked-in file and the routes differ.
const file = new URL('./openapi.json', import.meta.url);
writeFileSync(file, `${JSON.stringify(describeApi(createAuthApp()), null, 2)}\n`);
console.log(`✓ ${file.pathname}`);
