import { getDatabase } from '#lib/db/client';
import { type FieldError, InvalidInput, NotFoundError } from '#lib/errors/domain-errors';
import { listBody, type Pagination } from '#lib/http/pagination';
import { getSettings } from '#lib/settings/index';

import { requireKnownEnvironment } from '../environments/environment-service';
import { EntityRepository } from '../policies/entity-repository';
import type { ExceptionFilters, ExceptionInput, GovernanceException } from './exception';
import { ExceptionRepository, type ExceptionRow } from './exception-repository';
import { likePattern } from './resource-glob';

const DAY_MS = 86_400_000;

function represent(row: ExceptionRow): GovernanceException {
  return {
    id: row.id,
    ...(row.entityKind === 'policy' ? { policyId: row.entityId } : { metricId: row.entityId }),
    resourceId: row.resourceId,
    environment: row.environment,
    reason: row.reason,
    ticket: row.ticket,
    expiresAt: row.expiresAt.toISOString(),
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    active: row.active,
  };
}

/** `expiresAt` in the future and at most exceptions.max-duration after `now`. */
function expiryProblem(expiresAt: Date, now: Date, maxDurationMs: number): FieldError | undefined {
  if (expiresAt.getTime() <= now.getTime()) return { path: 'expiresAt', message: 'expiresAt must be in the future' };
  if (expiresAt.getTime() - now.getTime() > maxDurationMs) {
    const limit = maxDurationMs % DAY_MS === 0 ? `${maxDurationMs / DAY_MS} days` : `${maxDurationMs / 1000} seconds`;
    return {
      path: 'expiresAt',
      message: `expiresAt must be at most ${limit} ahead (exceptions.max-duration), before ${new Date(now.getTime() + maxDurationMs).toISOString()}`,
    };
  }
  return undefined;
}

export async function createException(input: ExceptionInput, subject: string): Promise<GovernanceException> {
  const now = new Date();
  const database = await getDatabase();
  const settings = await getSettings();
  const kind = input.policyId ? 'policy' : 'metric';
  const entityId = (input.policyId ?? input.metricId) as string;
  const field = kind === 'policy' ? 'policyId' : 'metricId';
  const expiresAt = new Date(input.expiresAt);
  const errors: FieldError[] = [];
  if (!(await new EntityRepository(database).find(kind, entityId))) errors.push({ path: field, message: `no ${kind} has the id ${entityId}` });
  const expiry = expiryProblem(expiresAt, now, settings.exceptions.maxDuration);
  if (expiry) errors.push(expiry);
  if (errors.length > 0) throw new InvalidInput(errors);
  if (input.environment !== undefined) await requireKnownEnvironment(input.environment, 'environment');
  const row = await new ExceptionRepository(database).create({
    entityId,
    entityKind: kind,
    resourceId: input.resourceId,
    resourceLike: likePattern(input.resourceId),
    environment: input.environment ?? null,
    reason: input.reason,
    ticket: input.ticket ?? null,
    expiresAt,
    createdBy: subject,
  });
  return represent(row);
}

export async function getException(id: string): Promise<GovernanceException> {
  const row = await new ExceptionRepository(await getDatabase()).find(id);
  if (!row) throw new NotFoundError(`No exception has the id ${id}`);
  return represent(row);
}

export async function listExceptions(filters: ExceptionFilters, pagination: Pagination) {
  const { rows, total } = await new ExceptionRepository(await getDatabase()).list(filters, pagination);
  return listBody(rows.map(represent), pagination, total);
}

export async function deleteException(id: string): Promise<void> {
  if (!(await new ExceptionRepository(await getDatabase()).delete(id))) throw new NotFoundError(`No exception has the id ${id}`);
}
