/** Deepest nesting of arrays and objects accepted in JSON text (request bodies, descriptors). */
export const MAX_JSON_DEPTH = 100;

/**
 * Whether JSON text nests arrays and objects deeper than `maxDepth`, read in one pass without
 * parsing it, so that no parser or walker meets a depth that could exhaust its stack.
 * Brackets inside strings do not count (a string is skipped to its closing quote, one not escaped
 * by an odd run of backslashes); text that is not JSON is left to the parser.
 */
export function jsonNestsDeeperThan(text: string, maxDepth = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x22 /* " */) {
      index = closingQuote(text, index);
      if (index < 0) return false;
    } else if (code === 0x5b /* [ */ || code === 0x7b /* { */) {
      if (++depth > maxDepth) return true;
    } else if (code === 0x5d /* ] */ || code === 0x7d /* } */) depth--;
  }
  return false;
}

/** Where the string opened at `open` ends, -1 when it does not. */
function closingQuote(text: string, open: number): number {
  for (let quote = text.indexOf('"', open + 1); quote >= 0; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c /* \ */) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
  return -1;
}
