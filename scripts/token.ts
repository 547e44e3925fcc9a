/**
 * `npm run token [subject]`: prints a technical JWT for calling the API locally
 * (curl -H "Authorization: Bearer $(npm run -s token)" …); see scripts/local-token.ts.
 */

// Only the token goes to stdout, so that $(npm run -s token) is the token: the logger is silenced
// before the modules that load it are imported.
process.env.LOG_LEVEL ??= 'silent';
const { loadSettings } = await import('#lib/settings/index');
const { localToken } = await import('./local-token');

const token = await localToken(await loadSettings(), process.argv[2]);
if (!token) {
  process.stderr.write('No backend secret to sign with (auth.backend-secrets is empty and this is a deployed environment).\n');
  process.exit(1);
}
process.stdout.write(`${token}\n`);

// A module (top-level await), though it exports nothing.
export {};
