/**
 * A value made on first use and kept for the process (or Lambda container): the settings, the
 * database pool, the CUE engine. A making that fails is forgotten, so the next use tries again.
 */
export function lazily<T>(make: () => Promise<T>) {
  let made: Promise<T> | undefined;
  return {
    get(): Promise<T> {
      if (!made) {
        const making = make();
        made = making;
        making.catch(() => {
          if (made === making) made = undefined;
        });
      }
      return made;
    },
    /** Forgets the value, so that the next `get` makes it anew; answers the one forgotten (none: undefined). */
    reset(): Promise<T> | undefined {
      const forgotten = made;
      made = undefined;
      return forgotten;
    },
  };
}

/**
 * The same, one value per key (an object: the settings a queue or a key ring is made from), kept
 * as long as the key is: settings loaded anew make their own.
 */
export function lazilyPer<K extends object, T>(make: (key: K) => Promise<T>): (key: K) => Promise<T> {
  const made = new WeakMap<K, Promise<T>>();
  return (key) => {
    let value = made.get(key);
    if (!value) {
      const making = make(key);
      value = making;
      made.set(key, making);
      making.catch(() => {
        if (made.get(key) === making) made.delete(key);
      });
    }
    return value;
  };
}
