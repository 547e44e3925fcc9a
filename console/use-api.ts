import { useEffect, useState } from 'preact/hooks';

export interface Loaded<T> {
  readonly data?: T;
  readonly error?: unknown;
  readonly loading: boolean;
}

/**
 * Calls `load` when `keys` change (the call before is aborted) and follows its answer. The data of
 * the call before stays shown while the next loads.
 */
export function useApi<T>(load: (signal: AbortSignal) => Promise<T>, keys: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<Loaded<T>>({ loading: true });
  useEffect(() => {
    const controller = new AbortController();
    setState((previous) => ({ data: previous.data, loading: true }));
    load(controller.signal).then(
      (data) => controller.signal.aborted || setState({ data, loading: false }),
      (error: unknown) => controller.signal.aborted || setState({ error, loading: false }),
    );
    return () => controller.abort();
  }, keys);
  return state;
}
