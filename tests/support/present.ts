/**
 * The value, once it is known to be there: a test that finds it missing fails here, naming what was
 * missing, instead of on a TypeError further on (and no non-null assertion is needed).
 */
export function present<T>(value: T | null | undefined, what = 'the value'): T {
  if (value === undefined || value === null) throw new Error(`expected ${what} to be present, got ${value}`);
  return value;
}
