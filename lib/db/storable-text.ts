import type { FieldError } from '#lib/errors/domain-errors';

const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNPAIRED_SURROGATES = new RegExp(UNPAIRED_SURROGATE.source, 'g');

/**
 * Why PostgreSQL cannot keep this text as it is: NUL cannot be stored at all, and an unpaired
 * UTF-16 surrogate is refused in jsonb and silently replaced by U+FFFD in text columns.
 */
function unstorable(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not hold a NUL character (U+0000)';
  if (UNPAIRED_SURROGATE.test(text)) return 'must not hold an unpaired UTF-16 surrogate (not valid Unicode)';
  return undefined;
}

/**
 * Whether every string (value or key) read from this JSON text is one the database can store: true
 * when the text holds no unstorable character and no `\u` escape (the only escape that can write
 * one), so that reading it needs no walk of `unstorableText`.
 */
export function storableJsonText(text: string): boolean {
  return !text.includes('\\u') && unstorable(text) === undefined;
}

/**
 * The first string (value or key) in `value` that the database cannot store, as a field error
 * with its path under `prefix`. Walks with an explicit stack, so no nesting can exhaust the call stack.
 */
export function unstorableText(value: unknown, prefix = ''): FieldError | undefined {
  const stack: Array<{ value: unknown; path: string }> = [{ value, path: prefix }];
  const join = (path: string, key: string) => (path ? `${path}.${key}` : key);
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const { value: item, path } = top;
    if (typeof item === 'string') {
      const message = unstorable(item);
      if (message) return { path, message };
    } else if (item !== null && typeof item === 'object') {
      const entries = Object.entries(item);
      for (const [key] of entries) {
        const message = unstorable(key);
        if (message) return { path: join(path, key), message: `the key ${message}` };
      }
      // Pushed in reverse so that the first offending value in document order is the one named.
      for (let index = entries.length - 1; index >= 0; index--) stack.push({ value: entries[index][1], path: join(path, entries[index][0]) });
    }
  }
  return undefined;
}

/**
 * A copy of a message of our own that the database can store: NUL dropped, unpaired surrogates
 * replaced by U+FFFD. For text that quotes what a caller sent (a refused name in a failure
 * notification), so that the message is not lost with the request.
 */
export function storableCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value), (_key, item) =>
    typeof item === 'string' ? item.replaceAll('\u0000', '').replace(UNPAIRED_SURROGATES, '\ufffd') : item,
  );
}
