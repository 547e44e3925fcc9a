/**
 * Resource ids of an exception: the id itself, or a glob where `*` matches any run of characters
 * (none included, `:` and `/` included), `?` exactly one character, and `\` makes the next
 * character literal (`\*`, `\?`, `\\`). Everything else matches itself, case included.
 */

/** Why the glob cannot be read, or undefined when it can. */
export function globProblem(glob: string): string | undefined {
  let escaped = false;
  for (const character of glob) escaped = !escaped && character === '\\';
  return escaped ? 'resourceId must not end with a lone "\\" (write "\\\\" for a backslash)' : undefined;
}

/** The glob as a PostgreSQL LIKE pattern whose escape character is `\`. */
export function likePattern(glob: string): string {
  let pattern = '';
  let escaped = false;
  for (const character of glob) {
    if (escaped) {
      pattern += /[%_\\]/.test(character) ? `\\${character}` : character;
      escaped = false;
    } else if (character === '\\') escaped = true;
    else if (character === '*') pattern += '%';
    else if (character === '?') pattern += '_';
    else pattern += /[%_]/.test(character) ? `\\${character}` : character;
  }
  return pattern;
}

/**
 * Whether the glob names no character of a resource id, only wildcards (`*`, `**`, `?*`): it then
 * waives every resource, or every one but the shortest, and needs the permission exceptions:waive-all.
 */
export const waivesEveryResource = (glob: string): boolean => /^[*?]+$/.test(glob);
