import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';

import { NotFoundError, Unavailable } from '#lib/errors/domain-errors';
import type { HttpResult } from '#lib/http/endpoint';
import { runtimeEnvironment } from '#lib/settings/environment';

/** Where scripts/build-console.mjs writes the console, below the package root (serverless.yml packages it). */
const BUILD_FOLDER = '.console-build';
const ASSET = /^assets\/[A-Za-z0-9_-]+\.(js|css)(\.map)?$/;

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/**
 * The page may run only its own script and style, call only its own origin, and be framed by no
 * one. No inline script or style, nothing from elsewhere. (CodeMirror's styles are constructed
 * style sheets, which style-src does not govern.)
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

async function read(file: string, root = runtimeEnvironment().root): Promise<string | undefined> {
  try {
    return await readFile(join(root, BUILD_FOLDER, file), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * The console's page: never cached without asking again, so a new deployment shows at once. Its
 * `cgp-token-link` meta tells the page what a `#token=` link does in a tab signed in already: on
 * the local server (npm start) it signs in, as the link start-up prints means; deployed it asks
 * first (console/auth/session.ts).
 */
export async function consolePage(environment = runtimeEnvironment()): Promise<HttpResult> {
  const template = await read('index.html', environment.root);
  if (template === undefined) throw new Unavailable('The console is not built: scripts/build-console.mjs builds it (npm start and npm run package do)');
  const html = template.replace('%TOKEN_LINK%', environment.deployed ? 'ask' : 'sign-in');
  return { status: 200, text: html, headers: { ...SECURITY_HEADERS, 'content-type': CONTENT_TYPES['.html'], 'cache-control': 'no-cache' } };
}

/**
 * A file below /console/: a hashed asset, cached for a year (its name changes with its content).
 * The page refers to its assets as console/assets/…, relative to /console; opened at /console/
 * (API Gateway and serverless offline may route a trailing slash to the page), it asks for
 * /console/console/assets/…, the same files. The console routes in the fragment (#/policies), so
 * any other path is a link to the console itself: it is sent back to /console, keeping its fragment.
 */
export async function consoleFile(path: string): Promise<HttpResult> {
  const file = path.replace(/^console\//, '');
  if (!ASSET.test(file)) return { status: 308, headers: { location: `${'../'.repeat(path.split('/').length)}console` } };
  const text = await read(file);
  if (text === undefined) throw new NotFoundError(`The console has no file ${file}`);
  return {
    status: 200,
    text,
    headers: { ...SECURITY_HEADERS, 'content-type': CONTENT_TYPES[extname(file)], 'cache-control': 'public, max-age=31536000, immutable' },
  };
}
