import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './workers/shared/racing/schema.ts',
  out: './workers/shared/racing/migrations',
  breakpoints: true,
});
