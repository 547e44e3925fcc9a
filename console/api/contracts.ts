import type { z } from 'zod';

import type { Endpoint } from '#lib/http/endpoint';

/**
 * What an endpoint answers with `status`, as its contract (lib/) declares it: the console's types
 * come from the same zod schemas the API validates and documents with (type imports only: no
 * server code reaches the browser bundle).
 */
export type Answer<E extends Endpoint, S extends keyof E['responses'] = 200> = E['responses'][S] extends { schema: infer T extends z.ZodType }
  ? z.output<T>
  : never;
