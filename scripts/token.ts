/**
 * `npm run token`: prints an admin technical JWT for calling the API locally
 * (curl -H "Authorization: Bearer $(npm run -s token)" …); `npm run token -- --subject NAME
 * --roles author,approver` prints one for that subject and those roles (scripts/local-token.ts).
 * A lone argument is the subject, as before.
 */
import { parseArgs } from 'node:util';

// Only the token goes to stdout, so that $(npm run -s token) is the token: the logger is silenced
// before the modules that load it are imported.
process.env.LOG_LEVEL ??= 'silent';
const { loadSettings } = await import('#lib/settings/index');
const { isRole, ROLES } = await import('#lib/authorization/roles');
const { localToken } = await import('./local-token');

function fail(message: string): never {
  process.stderr.write(`${message}\nUsage: npm run token [-- [--subject NAME] [--roles ${ROLES.join(',')}]]\n`);
  process.exit(2);
}

let parsed: ReturnType<typeof parseArgs<{ options: { subject: { type: 'string' }; roles: { type: 'string' } }; allowPositionals: true }>>;
try {
  parsed = parseArgs({ options: { subject: { type: 'string' }, roles: { type: 'string' } }, allowPositionals: true });
} catch (error) {
  fail((error as Error).message);
}
const { values, positionals } = parsed;
if (positionals.length > 1 || (positionals.length === 1 && values.subject)) fail('Give the subject once.');
const roles =
  values.roles === undefined
    ? undefined
    : values.roles
        .split(',')
        .map((role) => role.trim())
        .filter(Boolean);
const unknown = roles?.filter((role) => !isRole(role)) ?? [];
if (unknown.length > 0) fail(`Unknown role${unknown.length === 1 ? '' : 's'}: ${unknown.join(', ')}; the roles are ${ROLES.join(', ')}.`);

const token = await localToken(await loadSettings(), values.subject ?? positionals[0], roles?.filter(isRole));
if (!token) {
  process.stderr.write('No backend secret to sign with (auth.backend-secrets is empty and this is a deployed environment).\n');
  process.exit(1);
}
process.stdout.write(`${token}\n`);
