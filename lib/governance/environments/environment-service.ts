import { InvalidInput, Unavailable } from '#lib/errors/domain-errors';
import { listBody, type Pagination } from '#lib/http/pagination';

import type { GovernanceContext } from '../context';
import { EnvironmentRepository } from './environment-repository';

type Reading = Pick<GovernanceContext, 'database'>;

export async function listEnvironments(ctx: Reading, pagination: Pagination) {
  const { rows, total } = await new EnvironmentRepository(ctx.database).list(pagination);
  return listBody(
    rows.map((row) => ({ name: row.name, source: row.source, refreshedAt: row.refreshedAt.toISOString(), details: row.details })),
    pagination,
    total,
  );
}

/**
 * Every request naming an environment goes through this: an unknown one is a 400 naming the field
 * (`path`); with no environments known at all, the service cannot judge and answers 503.
 */
export async function requireKnownEnvironment(ctx: Reading, name: string, path = 'environment'): Promise<void> {
  const known = await new EnvironmentRepository(ctx.database).names();
  if (known.length === 0) {
    throw new Unavailable(
      'No environments are known: the platform could not be reached at start and none were stored before. ' +
        'Check platform-services.base-url and http-secret, then restart (or run the start-up tasks).',
    );
  }
  if (!known.includes(name)) throw new InvalidInput([{ path, message: `unknown environment "${name}"; known: ${known.join(', ')}` }]);
}
