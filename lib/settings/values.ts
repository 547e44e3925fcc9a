import { z } from 'zod';

const TRUE = new Set(['true', 'yes', 'on']);
const FALSE = new Set(['false', 'no', 'off']);

/** A HOCON boolean: true/false, or the strings HOCON accepts (values from `${?ENV}` arrive as strings). */
export const bool = () =>
  z.union([z.boolean(), z.string()]).transform((value, ctx) => {
    if (typeof value === 'boolean') return value;
    const text = value.trim().toLowerCase();
    if (TRUE.has(text)) return true;
    if (FALSE.has(text)) return false;
    ctx.addIssue({ code: 'custom', message: `expected a boolean (true or false), got ${JSON.stringify(value)}` });
    return z.NEVER;
  });

/** A whole number, also when written as a string (as `${?ENV}` values and the seed's `batch-size` are). */
export const int = (opts: { min?: number } = {}) =>
  z.union([z.number(), z.string()]).transform((value, ctx) => {
    const n = typeof value === 'number' ? value : /^\s*-?\d+\s*$/.test(value) ? Number(value) : Number.NaN;
    const min = opts.min ?? Number.MIN_SAFE_INTEGER;
    if (!Number.isSafeInteger(n) || n < min) {
      const expected = opts.min === 1 ? 'a positive integer' : opts.min === 0 ? 'a non-negative integer' : 'an integer';
      ctx.addIssue({ code: 'custom', message: `expected ${expected}, got ${JSON.stringify(value)}` });
      return z.NEVER;
    }
    return n;
  });

/** A non-empty string. */
export const text = () => z.string({ error: 'expected a string' }).trim().min(1, 'expected a non-empty string');

/**
 * The URL of an outside service a caller gives (a remote engine, a resolver): an absolute http(s) URL with
 * neither credentials nor a query nor a fragment, which would travel into results, errors and GET answers.
 */
export const serviceUrl = (field: string, example: string) =>
  z
    .string({ error: `${field} must be a string` })
    .trim()
    .refine(isAbsoluteHttpUrl, `${field} must be an absolute http(s) URL such as "${example}"`)
    .refine((value) => !carriesCredentials(value), `${field} must not carry credentials (user:password@): give the service a network path that needs none`)
    .refine((value) => !carriesQueryOrFragment(value), `${field} must not carry a query or a fragment (?, #)`);

const parsedUrl = (value: string): URL | undefined => (URL.canParse(value) ? new URL(value) : undefined);

/** A URL with a user name or password in it (false for what is no URL). */
export function carriesCredentials(value: string): boolean {
  const url = parsedUrl(value);
  return url !== undefined && (url.username !== '' || url.password !== '');
}

/** A URL with a query or a fragment (false for what is no URL). */
export function carriesQueryOrFragment(value: string): boolean {
  const url = parsedUrl(value);
  return url !== undefined && (url.search !== '' || url.hash !== '');
}

/** True for an absolute http: or https: URL (settings and request bodies alike). */
export function isAbsoluteHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** An absolute http(s) URL. */
export const httpUrl = () =>
  z.string({ error: 'expected an http(s) URL' }).refine(isAbsoluteHttpUrl, 'expected an absolute http(s) URL such as "https://host:8080"');

/** A URL path starting with "/". */
export const urlPath = () => z.string({ error: 'expected a path' }).regex(/^\/\S*$/, 'expected a path starting with "/"');

/** A 256-bit key written as base64 (openssl rand -base64 32). */
export const encryptionKey = () =>
  z
    .string()
    .refine(
      (value) => /^[A-Za-z0-9+/]{43}=$/.test(value.trim()) && Buffer.from(value.trim(), 'base64').length === 32,
      'expected 32 bytes in base64 (openssl rand -base64 32)',
    );

/** The items of a comma-separated list (a list given in one environment variable), trimmed, empty ones dropped. */
export const splitList = (text: string): string[] =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/** The fewest bytes (UTF-8) of a backend secret: HS256 wants a key as long as its hash (RFC 7518, 3.2). */
const MIN_BACKEND_SECRET_BYTES = 32;

/** A backend secret (HMAC key of technical JWTs). Its message never quotes the value. */
export const backendSecret = () =>
  z
    .string({ error: 'expected a string' })
    .trim()
    .refine(
      (secret) => Buffer.byteLength(secret, 'utf8') >= MIN_BACKEND_SECRET_BYTES,
      `expected a secret of at least ${MIN_BACKEND_SECRET_BYTES} bytes (UTF-8), got a shorter one (openssl rand -base64 32 makes one)`,
    );
