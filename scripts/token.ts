/**
 * `npm run token [subject]`: prints a technical JWT for calling the API locally
 * (curl -H "Authorization: Bearer $(npm run -s token)" …). It is signed with the first
 * auth.backend-secrets entry, or with the secret npm start generated in .data/ when there is none.
 */
import { SignJWT } from 'jose';

// Only the token goes to stdout, so that $(npm run -s token) is the token.
process.env.LOG_LEVEL ??= 'silent';
const { backendSecrets } = await import('../lib/auth/backend-secrets');
const { loadSettings } = await import('../lib/settings');

const settings = await loadSettings();
const [secret] = await backendSecrets(settings);
if (!secret) {
  process.stderr.write('No backend secret to sign with (auth.backend-secrets is empty and this is a deployed environment).\n');
  process.exit(1);
}
const token = await new SignJWT({ scope: 'local-development' })
  .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
  .setSubject(process.argv[2] ?? 'local-developer')
  .setIssuedAt()
  .setExpirationTime('12h')
  .sign(secret);
process.stdout.write(`${token}\n`);
