/**
 * `npm run token [subject]`: prints a technical JWT for calling the API locally
 * (curl -H "Authorization: Bearer $(npm run -s token)" …). It is signed with the first
 * auth.backend-secrets entry, or with the secret npm start generated in .data/ when there is none.
 * Valid 12 hours, or auth.technical-token-max-lifetime when that is shorter.
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
// 12 hours, or less when auth.technical-token-max-lifetime allows less: a token it would refuse is no use.
const lifetimeS = Math.min(12 * 3600, Math.floor(settings.platformServices.auth.technicalTokenMaxLifetime / 1000));
const nowS = Math.floor(Date.now() / 1000);
const token = await new SignJWT({ scope: 'local-development' })
  .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
  .setSubject(process.argv[2] ?? 'local-developer')
  .setIssuedAt(nowS)
  .setExpirationTime(nowS + lifetimeS)
  .sign(secret);
process.stdout.write(`${token}\n`);
