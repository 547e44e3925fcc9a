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
