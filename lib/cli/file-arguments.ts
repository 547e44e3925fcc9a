import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';

import { UsageError } from './usage-error';

const GLOB_CHARACTERS = /[*?{[]/;
const DESCRIPTOR_EXTENSIONS = /\.(ya?ml|json)$/i;

/** Every file under a folder, its paths joined to it, sorted. */
async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

async function kindOf(file: string): Promise<'file' | 'folder' | null> {
  try {
    return (await stat(file)).isDirectory() ? 'folder' : 'file';
  } catch {
    return null;
  }
}

/** A glob as a regular expression over `/`-separated paths: `*`, `?`, `**`, `{a,b}`, `[abc]`. */
function globPattern(glob: string): RegExp {
  let pattern = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      const slash = glob[i + 2] === '/';
      pattern += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') pattern += '[^/]*';
    else if (c === '?') pattern += '[^/]';
    else if (c === '{') pattern += '(?:';
    else if (c === '}') pattern += ')';
    else if (c === ',' && pattern.includes('(?:')) pattern += '|';
    else if (c === '[') {
      const end = glob.indexOf(']', i);
      if (end < 0) pattern += '\\[';
      else {
        pattern += `[${glob.slice(i + 1, end).replace(/^!/, '^')}]`;
        i = end;
      }
    } else pattern += c.replace(/[.+^$()|\\]/g, '\\$&');
  }
  return new RegExp(`^${pattern}$`);
}

/** The files a glob names, sorted: the folders before its first wildcard are walked. */
async function expandGlob(glob: string): Promise<string[]> {
  const parts = glob.split('/');
  const fixed = parts.findIndex((part) => GLOB_CHARACTERS.test(part));
  const base = parts.slice(0, fixed).join('/') || (glob.startsWith('/') ? '/' : '.');
  if ((await kindOf(base)) !== 'folder') return [];
  const pattern = globPattern(path.posix.normalize(glob));
  return (await filesUnder(base)).filter((file) => pattern.test(path.posix.normalize(file.split(path.sep).join('/'))));
}

/** The policy files of `cgp test`: the file given, or every `.cue` file under the folder given. */
export async function policyFilesOf(argument: string): Promise<string[]> {
  const kind = await kindOf(argument);
  if (kind === 'file') return [argument];
  if (kind === null) throw new UsageError(`${argument}: no such policy file or folder`);
  const files = (await filesUnder(argument)).filter((file) => file.endsWith('.cue'));
  if (files.length === 0) throw new UsageError(`${argument}: the folder has no .cue file`);
  return files;
}

/**
 * The descriptor files named by the arguments, in order, each once: files, globs (quoted, so the
 * shell leaves them to cgp: `'descriptors/**\/*.yaml'`) and folders (their YAML and JSON files).
 */
export async function descriptorFilesOf(args: readonly string[]): Promise<string[]> {
  const files = new Set<string>();
  for (const argument of args) {
    const kind = await kindOf(argument);
    const found =
      kind === 'file'
        ? [argument]
        : kind === 'folder'
          ? (await filesUnder(argument)).filter((file) => DESCRIPTOR_EXTENSIONS.test(file))
          : GLOB_CHARACTERS.test(argument)
            ? await expandGlob(argument)
            : null;
    if (found === null) throw new UsageError(`${argument}: no such descriptor file`);
    if (found.length === 0) throw new UsageError(`${argument}: matches no descriptor file`);
    for (const file of found) files.add(file);
  }
  return [...files];
}
