/** Deepest nesting of arrays and objects accepted in JSON text (request bodies, descriptors). */
export const MAX_JSON_DEPTH = 100;

/**
 * Whether JSON text nests arrays and objects deeper than `maxDepth`, read in one pass without
 * parsing it, so that no parser or walker meets a depth that could exhaust its stack.
 * Brackets inside strings do not count; text that is not JSON is left to the parser.
 */
export function jsonNestsDeeperThan(text: string, maxDepth = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c /* \ */) index++;
      else if (code === 0x22 /* " */) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b /* [ */ || code === 0x7b /* { */) {
      if (++depth > maxDepth) return true;
    } else if (code === 0x5d /* ] */ || code === 0x7d /* } */) depth--;
  }
  return false;
}
