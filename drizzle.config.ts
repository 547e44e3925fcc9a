import { defineConfig } from 'drizzle-kit';

// Only for `npm run db:generate`: SQL migrations are generated from the schema and committed.
export default defineConfig({
  dialect: 'postgresql',
  schema: './drizzle/schema/for-migrations.cjs',
  out: './drizzle/migrations',
});
