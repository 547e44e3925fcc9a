import { readFile } from 'node:fs/promises';

import { describe, expect, it } from 'vitest';

import { endpointRoute } from '#lib/http/endpoint-route';

import { ROUTES_FILE, routesText } from '../../scripts/console-routes';

// The console calls the API through console/api/routes.ts, generated from the endpoint contracts:
// it must say what they say (after a contract changes: npm run console:routes).

describe('the console routes', () => {
  it('are what the contracts say', async () => {
    expect(await readFile(ROUTES_FILE, 'utf8')).toBe(await routesText());
  });
});

describe('endpointRoute', () => {
  it('fills the path parameters, URL-encoded, and leaves out the undefined query values', () => {
    expect(endpointRoute('/v1/things/{id}/parts/{part}', { id: 'a b/c', part: 2 }, { limit: 10, after: undefined, text: '' })).toBe(
      '/v1/things/a%20b%2Fc/parts/2?limit=10&text=',
    );
    expect(endpointRoute('/health', undefined, undefined)).toBe('/health');
  });
});
