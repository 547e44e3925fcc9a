import type { Approval, ApprovalDiff } from '#lib/authorization/approval';
import type { RoleBindingInput } from '#lib/authorization/role-binding';
import { RoleBindingRepository, type RoleBindingRow } from '#lib/authorization/role-binding-repository';
import { inTransaction } from '#lib/db/transaction';
import { ConflictError, NotFoundError } from '#lib/errors/domain-errors';
import { maskApiKey } from '#lib/llm/api-key-encryption';
import type { ModelConfigInput, ModelKind } from '#lib/llm/model-config';
import { LABEL, storedModels } from '#lib/llm/stored-models';

import type { GovernanceContext } from '../context';
import { fromInput, type ResourceTypeInput } from '../resource-types/resource-type';
import { columnsOf, definitionOf, represent as representType, ResourceTypeRepository } from '../resource-types/resource-type-repository';
import { checkResourceType, deleteResourceType, registerResourceType } from '../resource-types/resource-type-service';
import { type ApprovalTarget, decide, record } from './approval-records';
import type { ApprovalRow } from './approval-repository';

/**
 * Four-eyes over the service's own settings (docs/authorization.md, "Four-eyes"): who holds which
 * role, where a resource type's resources are listed (its resolver), and the models that judge LLM
 * policies. Under four-eyes a change of any of them is a request that someone else decides, as a
 * change of what the gate enforces is; the change is applied with the decision, in one transaction.
 */

/** The kinds of request of this file. */
const SETTINGS_KINDS = ['role-binding', 'resource-type', 'model-config'] as const;
export const isSettingsKind = (kind: string): kind is (typeof SETTINGS_KINDS)[number] => (SETTINGS_KINDS as readonly string[]).includes(kind);

type Fields = Record<string, unknown>;

/** Every field whose value differs, with its value before and after (null: none). */
function changesOf(before: Fields | null, after: Fields | null): ApprovalDiff['changes'] {
  const fields = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])];
  return fields
    .map((field) => ({ field, before: before?.[field] ?? null, after: after?.[field] ?? null }))
    .filter((change) => JSON.stringify(change.before) !== JSON.stringify(change.after));
}

const diffOf = (before: Fields | null, after: Fields | null): ApprovalDiff => ({
  enforcedVersion: null,
  requestedVersion: null,
  changes: changesOf(before, after),
  patch: null,
});

const changedSinceRequest = (what: string) => new ConflictError(`The ${what} changed since the request was made: reject it and ask again`);

// Role bindings

export type RoleBindingChange = { action: 'create'; binding: RoleBindingInput } | { action: 'delete'; id: string };

const bindingFields = (binding: RoleBindingInput | RoleBindingRow): Fields => ({
  subjects: binding.subjects,
  groups: binding.groups,
  roles: binding.roles,
  resourceTypes: binding.resourceTypes ?? null,
  environments: binding.environments ?? null,
});

const bindingName = (binding: RoleBindingInput | RoleBindingRow) =>
  `${binding.roles.join(', ')} for ${[...binding.subjects, ...binding.groups.map((group) => `group ${group}`)].join(', ')}`;

export async function requestRoleBindingChange(ctx: GovernanceContext, change: RoleBindingChange, requester: string): Promise<Approval> {
  if (change.action === 'create') {
    const target: ApprovalTarget = { kind: 'role-binding', id: null, name: bindingName(change.binding) };
    const request = { action: 'create', binding: bindingFields(change.binding) };
    return record(
      ctx,
      { kind: 'role-binding', target, resourceType: null, environment: null, request, diff: diffOf(null, bindingFields(change.binding)) },
      requester,
    );
  }
  const current = await new RoleBindingRepository(ctx.database).find(change.id);
  if (!current) throw new NotFoundError(`No role binding of the database has the id ${change.id}`);
  const target: ApprovalTarget = { kind: 'role-binding', id: current.id, name: bindingName(current) };
  const request = { action: 'delete', id: current.id, binding: bindingFields(current) };
  return record(ctx, { kind: 'role-binding', target, resourceType: null, environment: null, request, diff: diffOf(bindingFields(current), null) }, requester);
}

// Resource types

export type ResourceTypeChange = { action: 'register'; resourceType: ResourceTypeInput } | { action: 'delete'; name: string };

export async function requestResourceTypeChange(ctx: GovernanceContext, change: ResourceTypeChange, requester: string): Promise<Approval> {
  const name = change.action === 'register' ? change.resourceType.name : change.name;
  const row = await new ResourceTypeRepository(ctx.database).find(name);
  if (change.action === 'delete' && !row) throw new NotFoundError(`No resource type is named "${name}"`);
  if (change.action === 'register') checkResourceType(ctx, change.resourceType);
  // What the request was asked against: an approval applies only to the type as it was then.
  const pinned = row ? representType(row).updatedAt : null;
  // What the type is, without who changed it when: as stored, and as the registration would store it.
  const before = row ? columnsOf(definitionOf(row)) : null;
  const after = change.action === 'register' ? columnsOf(fromInput(change.resourceType)) : null;
  const request = change.action === 'register' ? { action: 'register', resourceType: change.resourceType, pinned } : { action: 'delete', name, pinned };
  const target: ApprovalTarget = { kind: 'resource-type', id: name, name };
  return record(ctx, { kind: 'resource-type', target, resourceType: name, environment: null, request, diff: diffOf(before, after) }, requester);
}

// Model configurations

const modelFields = (config: Omit<ModelConfigInput, 'api_key'> & { api_key: string }): Fields => ({
  provider: config.provider,
  api_key: config.api_key,
  endpoint: config.endpoint,
  api_version: config.api_version,
  model: config.model,
  deployment: config.deployment,
  custom_header: config.custom_header ?? null,
});

/** The request carries the API key encrypted as a stored one is (`sealed`), and shows it masked. */
export async function requestModelConfigChange(ctx: GovernanceContext, kind: ModelKind, input: ModelConfigInput, requester: string): Promise<Approval> {
  const { repository } = await storedModels(ctx);
  const current = await repository.find(kind);
  const config = modelFields({ ...input, api_key: maskApiKey(input.api_key) });
  const request = { kind, config, pinned: current?.updated_at ?? null };
  const target: ApprovalTarget = { kind, id: kind, name: `${LABEL[kind]} configuration` };
  const before = current ? modelFields({ ...current, custom_header: current.custom_header ?? undefined }) : null;
  return record(
    ctx,
    { kind: 'model-config', target, resourceType: null, environment: null, request, diff: diffOf(before, config), sealed: repository.seal(input.api_key) },
    requester,
  );
}

// Deciding

type Decision = { decidedBy: string; comment: string | null };

/** Applies an approved request of the settings with its decision, in one transaction: both are written, or neither. */
export async function applySettingsRequest(ctx: GovernanceContext, row: ApprovalRow, { decidedBy, comment }: Decision): Promise<ApprovalRow> {
  const approve = (outcome: Record<string, unknown>, tx: Parameters<typeof decide>[1]) =>
    decide(ctx, tx, row.id, { status: 'approved', decidedBy, comment, outcome });
  const request = row.request;
  if (row.kind === 'role-binding') {
    const bindings = new RoleBindingRepository(ctx.database);
    return inTransaction(ctx.database, 'approve role binding', async (tx) => {
      if (request.action === 'create') {
        const created = await bindings.create(request.binding as RoleBindingInput, row.requestedBy, tx);
        return approve({ roleBindingId: created.id }, tx);
      }
      if (!(await bindings.delete(String(request.id), tx))) throw changedSinceRequest('role binding');
      return approve({ roleBindingId: request.id }, tx);
    });
  }
  if (row.kind === 'resource-type') {
    const name = row.resourceType ?? '';
    const current = await new ResourceTypeRepository(ctx.database).find(name);
    if ((current ? representType(current).updatedAt : null) !== request.pinned) throw changedSinceRequest(`resource type "${name}"`);
    return inTransaction(ctx.database, 'approve resource type', async (tx) => {
      const approved = await approve({ resourceType: name, action: request.action }, tx);
      if (request.action === 'register') await registerResourceType(ctx, request.resourceType as ResourceTypeInput, row.requestedBy, tx);
      else await deleteResourceType(ctx, name, tx);
      return approved;
    });
  }
  const { repository } = await storedModels(ctx);
  const kind = request.kind as ModelKind;
  if (((await repository.find(kind))?.updated_at ?? null) !== request.pinned) throw changedSinceRequest(`${LABEL[kind]} configuration`);
  const config = { ...(request.config as ModelConfigInput), api_key: repository.unseal(row.sealed ?? '') };
  return inTransaction(ctx.database, 'approve model configuration', async (tx) => {
    const approved = await approve({ kind }, tx);
    await repository.save(kind, { ...config, custom_header: config.custom_header ?? undefined }, row.requestedBy, tx);
    return approved;
  });
}
