import { readFileSync } from 'node:fs';
import path from 'node:path';

import { parse as parseYaml } from 'yaml';

import type { LambdaHttpHandler } from '#lib/http/handler';

/**
 * Each `METHOD /path` route of serverless.yml to the handler of the function it is deployed on,
 * imported as Lambda would load it: a call goes through the function's router as deployed.
 */
export async function deployedHandlersByRoute(): Promise<Map<string, LambdaHttpHandler>> {
  const template = parseYaml(readFileSync('serverless.yml', 'utf8')) as {
    functions: Record<string, { handler: string; events?: Array<{ httpApi?: string }> }>;
  };
  const routes = new Map<string, LambdaHttpHandler>();
  for (const fn of Object.values(template.functions)) {
    for (const event of fn.events ?? []) {
      if (!event.httpApi || event.httpApi === '*') continue;
      const [file, exported] = [fn.handler.slice(0, fn.handler.lastIndexOf('.')), fn.handler.slice(fn.handler.lastIndexOf('.') + 1)];
      const module = (await import(/* @vite-ignore */ path.resolve(`${file}.ts`))) as Record<string, LambdaHttpHandler>;
      routes.set(event.httpApi, module[exported]);
    }
  }
  return routes;
}
