import { readFile } from 'node:fs/promises';

import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type { z } from 'zod';

import { entityFileMetadata } from '#lib/governance/policies/entity';

import { UsageError } from './usage-error';

export type PolicyMetadata = z.output<typeof entityFileMetadata>;

/**
 * A CUE policy or metric as a file: its script (the whole file, so CUE's line numbers are the
 * file's), the script without its front matter (what the platform stores), and its metadata.
 */
export interface PolicyFile {
  readonly path: string;
  readonly script: string;
  readonly body: string;
  readonly metadata: PolicyMetadata;
}

const FENCE = /^\/\/\s*---\s*$/;

/**
 * The front matter of a policy file (YAML in the comment lines between two `// ---` lines that open
 * the file) and the script after it; null when the file does not open with one.
 */
function splitFrontMatter(script: string): { yaml: string; body: string } | null {
  const lines = script.split('\n');
  if (!FENCE.test(lines[0] ?? '')) return null;
  const end = lines.findIndex((line, index) => index > 0 && FENCE.test(line));
  if (end < 0) throw new UsageError('its front matter opens with "// ---" but has no closing "// ---" line');
  const yaml = lines
    .slice(1, end)
    .map((line) => {
      if (!line.startsWith('//')) throw new UsageError(`its front matter has a line that is not a // comment: ${JSON.stringify(line)}`);
      return line.slice(line.startsWith('// ') ? 3 : 2);
    })
    .join('\n');
  return { yaml, body: lines.slice(end + 1).join('\n') };
}

/** A policy file's text with its metadata as front matter: what `cgp policies pull` writes. */
export function policyFileText(metadata: Record<string, unknown>, body: string): string {
  const yaml = stringifyYaml(metadata, { lineWidth: 0 }).trimEnd();
  return ['// ---', ...yaml.split('\n').map((line) => `// ${line}`.trimEnd()), '// ---', body].join('\n');
}

/** The metadata file that may sit beside a policy: `sales.cue` -> `sales.yaml` (or `.yml`). */
const sidecarPaths = (path: string) => ['.yaml', '.yml'].map((extension) => path.replace(/\.cue$/, extension));

async function readIfPresent(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Validates metadata read from YAML text; every problem names its field. */
function parseMetadata(yamlText: string): PolicyMetadata {
  let raw: unknown;
  try {
    raw = parseYaml(yamlText) ?? {};
  } catch (error) {
    throw new UsageError(`its metadata is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  const parsed = entityFileMetadata.safeParse(raw);
  if (!parsed.success) {
    throw new UsageError(
      `its metadata is invalid: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(metadata)'}: ${issue.message}`).join('; ')}`,
    );
  }
  return parsed.data;
}

/** Reads a policy file and its metadata, from its front matter or the YAML file beside it (not both). */
export async function readPolicyFile(path: string): Promise<PolicyFile> {
  const script = await readIfPresent(path);
  if (script === null) throw new UsageError(`${path}: no such file`);
  try {
    const front = splitFrontMatter(script);
    const sidecars = (await Promise.all(sidecarPaths(path).map(async (candidate) => ({ candidate, text: await readIfPresent(candidate) })))).filter(
      (sidecar) => sidecar.text !== null,
    );
    if (front !== null && sidecars.length > 0) throw new UsageError(`its metadata is both in its front matter and in ${sidecars[0].candidate}: keep one`);
    if (sidecars.length > 1) throw new UsageError(`its metadata is in both ${sidecars[0].candidate} and ${sidecars[1].candidate}: keep one`);
    return { path, script, body: front?.body ?? script, metadata: parseMetadata(front?.yaml ?? sidecars[0]?.text ?? '') };
  } catch (error) {
    if (error instanceof UsageError) throw new UsageError(`${path}: ${error.message}`);
    throw error;
  }
}
