import { cueErrorPath, descriptorLocator } from './descriptor-locator';

/** Where in the descriptor's text the field a CUE error names is (1-based), for consoles, SARIF files and peer clients. */
export interface ErrorLocation {
  readonly path: string;
  readonly line: number;
  readonly column: number;
}

/** The last line of a CUE message is a position (`    policy.cue:3:8`) when CUE gave one. */
const ENDS_WITH_POSITION = /\n {4}\S+:\d+:\d+$/;

/**
 * The CUE errors of a result located in the descriptor's text: each message that names a field
 * keeps CUE's words and gains the position `descriptor:LINE:COL` (the field, or the parent a missing
 * field belongs in), in CUE's own layout of positions; `locations` lists them structured.
 */
export function locateCueErrors(errors: readonly string[], text: string): { errors: string[]; locations: ErrorLocation[] } {
  const locate = descriptorLocator(text);
  const locations: ErrorLocation[] = [];
  const located = errors.map((message) => {
    const path = cueErrorPath(message);
    if (path === undefined) return message;
    const { line, column } = locate(path);
    locations.push({ path, line, column });
    return `${message}${ENDS_WITH_POSITION.test(message) ? '' : ':'}\n    descriptor:${line}:${column}`;
  });
  return { errors: located, locations };
}
