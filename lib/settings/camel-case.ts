type CamelKey<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<CamelKey<Tail>>}` : S;

/** The type of a settings tree with its kebab-case keys turned into camelCase. */
export type CamelCased<T> = T extends readonly (infer Item)[]
  ? CamelCased<Item>[]
  : T extends object
    ? { [K in keyof T as K extends string ? CamelKey<K> : K]: CamelCased<T[K]> }
    : T;

const camelKey = (key: string) => key.replace(/-([a-z0-9])/g, (_, char: string) => char.toUpperCase());

/** Returns a deep copy of `value` whose object keys are camelCase. */
export function camelCase<T>(value: T): CamelCased<T> {
  if (Array.isArray(value)) return value.map(camelCase) as CamelCased<T>;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [camelKey(key), camelCase(item)])) as CamelCased<T>;
  }
  return value as CamelCased<T>;
}
