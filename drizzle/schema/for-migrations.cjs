// What drizzle-kit reads (drizzle.config.ts, `npm run db:generate`): every table, in the schema
// migrations are generated for. It takes the tables a file exports, so they are exported as one
// object here rather than listed a second time.
const { defineTables, MIGRATIONS_SCHEMA_NAME } = require('./index.ts');

module.exports = defineTables(MIGRATIONS_SCHEMA_NAME);
