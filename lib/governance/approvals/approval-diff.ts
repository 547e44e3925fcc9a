import { createHash } from 'node:crypto';

import { createTwoFilesPatch } from 'diff';

import type { ApprovalDiff } from '#lib/authorization/approval';

import type { ExceptionInput } from '../exceptions/exception';
import type { EntityRepresentation } from '../policies/entity';
import type { EntityStatus } from '../policies/lifecycle';

/** The fields that say what a version enforces (not who wrote it, nor when, nor its status). */
const CONTENT_FIELDS = [
  'name',
  'description',
  'resourceType',
  'environment',
  'severity',
  'interactionType',
  'tags',
  'engine',
  'cueScript',
  'requireConcrete',
  'remoteEngineUrl',
  'llmRule',
  'trigger',
  'timing',
  'cronExpression',
  'strategy',
  'thresholds',
  'evaluator',
] as const satisfies readonly (keyof EntityRepresentation)[];

const contentOf = (entity: EntityRepresentation) => CONTENT_FIELDS.map((field) => [field, entity[field] ?? null] as const);

/**
 * The fingerprint of what a version enforces: a request pins it, and an approval applies only when
 * the version still has it (a draft edited after the request is not what the approver saw).
 */
export const fingerprintOf = (entity: EntityRepresentation): string =>
  createHash('sha256')
    .update(JSON.stringify(contentOf(entity)))
    .digest('hex');

const ruleOf = (entity: EntityRepresentation) => entity.cueScript ?? entity.llmRule ?? entity.remoteEngineUrl ?? '';

/**
 * What a publish or a status move changes: `requested` (the version to publish or move) against
 * `enforced` (the version enabled or in grace now, if any), field by field, its status moving to `to`.
 */
export function entityDiff(enforced: EntityRepresentation | null, requested: EntityRepresentation, to: EntityStatus): ApprovalDiff {
  const changes: ApprovalDiff['changes'] = [];
  const before = new Map(enforced ? contentOf(enforced) : []);
  for (const [field, after] of contentOf(requested)) {
    const was = before.get(field) ?? null;
    if (JSON.stringify(was) !== JSON.stringify(after)) changes.push({ field, before: was, after });
  }
  const statusBefore = requested.status;
  if (statusBefore !== to) changes.unshift({ field: 'status', before: statusBefore, after: to });
  if (enforced && enforced.version !== requested.version && ['enabled', 'grace'].includes(to))
    changes.unshift({ field: 'enforcedVersion', before: enforced.version, after: requested.version });
  const [was, now] = [enforced ? ruleOf(enforced) : '', ruleOf(requested)];
  const patch =
    was === now
      ? null
      : createTwoFilesPatch(enforced ? `version ${enforced.version}` : 'nothing enforced', `version ${requested.version}`, was, now, undefined, undefined, {
          context: 3,
        });
  return { enforcedVersion: enforced?.version ?? null, requestedVersion: requested.version, changes, patch };
}

/** A new exception changes every one of its fields, from nothing. */
export function exceptionDiff(input: ExceptionInput, matchedResources: number): ApprovalDiff {
  const changes = Object.entries(input)
    .filter(([, value]) => value !== undefined)
    .map(([field, after]) => ({ field, before: null, after }));
  return { enforcedVersion: null, requestedVersion: null, changes, patch: null, matchedResources };
}
