import { access } from 'node:fs/promises';
import path from 'node:path';

import parseHocon from '@pushcorn/hocon-parser';
import type { z } from 'zod';

import { logger } from '#lib/logging/logger';

import { camelCase, type CamelCased } from './camel-case';
import { runtimeEnvironment } from './environment';
import { type RawSettings, settingsSchema } from './schema';
import { readSecretParameters } from './secret-parameters';

const ROOT_KEY = 'computational-governance-platform';

/** Typed, validated, frozen settings of both services. */
export type Settings = Readonly<CamelCased<RawSettings>> & {
  /** Where the settings were read from. */
  readonly source: string;
  /** `DATABASE_URL` from the environment, which wins over the database block. */
  readonly databaseUrlFromEnvironment?: string;
};

/** Start must stop on this: its message names every bad key with its full path and what was expected. */
export class SettingsError extends Error {
  constructor(
    readonly source: string,
    readonly problems: string[],
  ) {
    super(`Invalid settings in ${source}:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'SettingsError';
  }
}

/** The settings file: CGP_CONFIG_FILE when set, else config/application.conf of the deployed bundle or checkout. */
function settingsFilePath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CGP_CONFIG_FILE) return path.resolve(env.CGP_CONFIG_FILE);
  return path.join(runtimeEnvironment(env).root, 'config', 'application.conf');
}

/** The product document spells two keys two ways; read both, the documented spelling first. */
function applyAlternativeSpellings(root: Record<string, unknown>): void {
  if (root['breaking-change'] === undefined && root['previous-vs-current'] !== undefined) {
    root['breaking-change'] = root['previous-vs-current'];
  }
  delete root['previous-vs-current'];
  const services = root['platform-services'];
  const auth = services !== null && typeof services === 'object' ? (services as Record<string, unknown>).auth : undefined;
  if (auth && typeof auth === 'object') {
    const block = auth as Record<string, unknown>;
    if (block['cache-duration'] === undefined && block['cache-expiration'] !== undefined) block['cache-duration'] = block['cache-expiration'];
    delete block['cache-expiration'];
  }
}

function expectedOf(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') return issue.expected;
  if (issue.code === 'invalid_union') return [...new Set(issue.errors.flatMap((branch) => branch.map(expectedOf)))].join(' or ');
  return 'a value';
}

function valueAt(root: unknown, keys: PropertyKey[]): unknown {
  return keys.reduce<unknown>((value, key) => (value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined), root);
}

function describe(issue: z.core.$ZodIssue, root: unknown): string {
  const where = [ROOT_KEY, ...issue.path.map(String)].join('.');
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => `${where}.${key}: unknown setting`).join('\n  - ');
  }
  if ((issue.code === 'invalid_type' || issue.code === 'invalid_union') && valueAt(root, issue.path) === undefined) {
    return `${where}: required, expected ${expectedOf(issue)}`;
  }
  return `${where}: ${issue.message}`;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

/** The keys of the platform's own URLs (platform, key set, notifications, events) that are plain http to another host than this one. */
function plainHttpServiceUrls(data: RawSettings): string[] {
  const urls: [string, string | undefined][] = [
    ['platform-services.base-url', data['platform-services']['base-url']],
    ['platform-services.auth.jwks-url', data['platform-services'].auth['jwks-url']],
    ['notification.url', data.notification.url],
    ['events.events-backend-base-url', data.events['events-backend-base-url']],
  ];
  return urls.filter(([, url]) => url !== undefined && new URL(url).protocol === 'http:' && !isLoopbackHost(new URL(url).hostname)).map(([key]) => key);
}

const isLoopbackHost = (host: string) => host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);

let parsing: Promise<unknown> = Promise.resolve();

/**
 * Runs `parse` with `variables` in process.env, where the HOCON parser reads `${?VAR}`, and takes them out
 * again afterwards: secrets read from SSM are not left for child processes and later readers. One parse
 * at a time, so that no load sees (or removes) another's variables.
 */
function withVariables<T>(variables: ReadonlyMap<string, string>, parse: () => Promise<T>): Promise<T> {
  const run = parsing.then(async () => {
    const before = new Map([...variables.keys()].map((name) => [name, process.env[name]]));
    for (const [name, value] of variables) process.env[name] = value;
    try {
      return await parse();
    } finally {
      for (const [name, value] of before) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
  parsing = run.catch(() => undefined);
  return run;
}

/** Reads, validates and freezes a settings file. Throws SettingsError naming every problem. */
export async function loadSettings(file: string = settingsFilePath(), env: NodeJS.ProcessEnv = process.env): Promise<Settings> {
  try {
    await access(file);
  } catch {
    throw new SettingsError(file, ['the settings file does not exist or cannot be read (set CGP_CONFIG_FILE to use another file)']);
  }
  // A Lambda configuration passes every variable serverless.yml lists, unset ones as "": for
  // `${?VAR}` an empty variable is an unset one. (The HOCON parser reads process.env itself.)
  for (const [name, value] of Object.entries(process.env)) if (value === '') delete process.env[name];
  const secrets = await readSecretParameters(env);
  if (secrets.problems.length > 0) throw new SettingsError(file, secrets.problems);
  if (secrets.values.size > 0) logger.info({ variables: [...secrets.values.keys()] }, 'read secrets from SSM Parameter Store');
  let parsed: unknown;
  try {
    parsed = await withVariables(secrets.values, () => parseHocon({ url: file, strict: true }));
  } catch (error) {
    throw new SettingsError(file, [`not valid HOCON: ${(error as Error).message}`]);
  }
  const root = (parsed as Record<string, unknown> | null)?.[ROOT_KEY];
  if (root === null || typeof root !== 'object' || Array.isArray(root)) {
    throw new SettingsError(file, [`${ROOT_KEY}: required, expected the root block of the settings`]);
  }
  applyAlternativeSpellings(root as Record<string, unknown>);
  const result = settingsSchema.safeParse(root);
  if (!result.success)
    throw new SettingsError(
      file,
      result.error.issues.map((issue) => describe(issue, root)),
    );
  if (runtimeEnvironment(env).deployed) {
    const plain = plainHttpServiceUrls(result.data);
    if (plain.length > 0)
      throw new SettingsError(
        file,
        plain.map((key) => `${ROOT_KEY}.${key}: expected an https:// URL when deployed (calls to the platform carry tokens and secrets)`),
      );
  }
  return deepFreeze({
    ...camelCase(result.data),
    source: file,
    databaseUrlFromEnvironment: secrets.values.get('DATABASE_URL') ?? (env.DATABASE_URL || undefined),
  });
}
