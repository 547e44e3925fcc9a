const IDENTIFIER = /^(?:#|_#)?[_$\p{L}][\p{L}\p{N}_$]*$/u;

/** A path of arc keys as CUE prints it: a regular field named like a hidden one or a definition (`"_links"`) is quoted. */
export function formatPath(path: readonly string[]): string {
  return path
    .map((key) => (key.charCodeAt(0) === 0 ? JSON.stringify(key.slice(1)) : IDENTIFIER.test(key) || /^\d+$/.test(key) ? key : JSON.stringify(key)))
    .join('.');
}
