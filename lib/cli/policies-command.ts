import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { metricEndpoints, policyEndpoints } from '#lib/governance/policies/endpoints';
import { type EntityInput, type EntityRepresentation, metricInput, policyInput } from '#lib/governance/policies/entity';

import { type ApiAccess, ApiClient } from './api-client';
import { policyFilesOf } from './file-arguments';
import { type PolicyFile, policyFileText, readPolicyFile } from './policy-file';
import { UsageError } from './usage-error';

type Kind = 'policy' | 'metric';

const endpointsOf = (kind: Kind) => (kind === 'metric' ? metricEndpoints : policyEndpoints);

/** The fields a policy file keeps, in the order it writes them; the platform's input less the engine's. */
const KEPT = [
  'name',
  'description',
  'resourceType',
  'environment',
  'severity',
  'interactionType',
  'tags',
  'requireConcrete',
  'trigger',
  'timing',
  'cronExpression',
  'strategy',
  'thresholds',
] as const;

/** Every CUE entity of a kind, newest version of each, page after page. */
async function listCue(client: ApiClient, kind: Kind, resourceType?: string): Promise<EntityRepresentation[]> {
  const entities: EntityRepresentation[] = await client.list(endpointsOf(kind).list, { query: { resourceType } });
  return entities.filter((entity) => entity.engine === 'cue' && entity.cueScript !== null);
}

/** A file name from an entity's name: lower case, dashes; `-2`, `-3`... when two entities would share it. */
function fileNames(entities: readonly EntityRepresentation[]): string[] {
  const used = new Set<string>();
  return entities.map((entity) => {
    const base =
      entity.name
        .normalize('NFKD')
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, '') || 'policy';
    let name = base;
    for (let n = 2; used.has(name); n++) name = `${base}-${n}`;
    used.add(name);
    return `${name}.cue`;
  });
}

/** The metadata a file keeps of an entity: its kind and id, then the kept fields (a metric's thresholds only for metrics). */
function metadataOf(kind: Kind, entity: EntityRepresentation): Record<string, unknown> {
  const kept = Object.fromEntries(KEPT.filter((field) => field !== 'thresholds' || kind === 'metric').map((field) => [field, entity[field]]));
  return { kind, id: entity.id, ...kept };
}

/** `cgp policies pull <dir>`: one file per CUE policy and metric of the platform (of one resource type), front matter and script. */
export async function pullPolicies(folder: string, access: ApiAccess & { type?: string }): Promise<string[]> {
  const client = new ApiClient(access);
  const entities = [
    ...(await listCue(client, 'policy', access.type)).map((entity) => ({ kind: 'policy' as const, entity })),
    ...(await listCue(client, 'metric', access.type)).map((entity) => ({ kind: 'metric' as const, entity })),
  ];
  const names = fileNames(entities.map(({ entity }) => entity));
  await mkdir(folder, { recursive: true });
  await Promise.all(
    entities.map(({ kind, entity }, i) => writeFile(path.join(folder, names[i]), policyFileText(metadataOf(kind, entity), entity.cueScript ?? ''))),
  );
  return names.map(
    (name, i) => `wrote ${path.join(folder, name)} (${entities[i].kind} ${JSON.stringify(entities[i].entity.name)}, version ${entities[i].entity.version})`,
  );
}

/** A draft is edited in place; any other status gets the edit as its next version (a draft). */
type Action = 'create' | 'new version' | 'edit draft' | 'unchanged';

interface PlannedChange {
  readonly file: string;
  readonly kind: Kind;
  readonly name: string;
  readonly action: Action;
  /** Published after the change (--publish), when its newest version is not enabled already. */
  readonly publish: boolean;
  readonly id?: string;
  readonly input: EntityInput;
}

/** The platform's input for a policy file, checked by the API's own schema (every problem names the file and the field). */
function inputOf(file: PolicyFile): EntityInput {
  const { kind } = file.metadata;
  const raw: Record<string, unknown> = { ...Object.fromEntries(KEPT.map((field) => [field, file.metadata[field]])), engine: 'cue', cueScript: file.body };
  if (kind !== 'metric') delete raw.thresholds;
  const parsed = (kind === 'metric' ? metricInput : policyInput).safeParse(raw);
  if (!parsed.success) throw new UsageError(`${file.path}: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
  return parsed.data;
}

const sameContent = (input: EntityInput, entity: EntityRepresentation) =>
  [...KEPT, 'cueScript' as const].every(
    (field) => JSON.stringify((input as Record<string, unknown>)[field] ?? null) === JSON.stringify((entity as Record<string, unknown>)[field] ?? null),
  );

/** What `push` would do for every file: create, a new version, or nothing; and what to publish. */
async function plan(client: ApiClient, files: readonly PolicyFile[], publish: boolean): Promise<PlannedChange[]> {
  const existing = { policy: await listCue(client, 'policy'), metric: await listCue(client, 'metric') };
  return files.map((file) => {
    const { kind, id } = file.metadata;
    const input = inputOf(file);
    const candidates = existing[kind].filter((entity) => (id ? entity.id === id : entity.name === input.name && entity.resourceType === input.resourceType));
    if (id && candidates.length === 0) throw new UsageError(`${file.path}: the platform has no CUE ${kind} with id ${id}`);
    if (candidates.length > 1)
      throw new UsageError(
        `${file.path}: ${candidates.length} ${kind}s are named ${JSON.stringify(input.name)} for ${input.resourceType}: add the id of one to the metadata`,
      );
    const [entity] = candidates;
    const base = { file: file.path, kind, name: String(input.name), input };
    if (!entity) return { ...base, action: 'create', publish };
    const action: Action = sameContent(input, entity) ? 'unchanged' : entity.status === 'draft' ? 'edit draft' : 'new version';
    return { ...base, id: entity.id, action, publish: publish && (action !== 'unchanged' || entity.status !== 'enabled') };
  });
}

/** Applies one planned change through the API; under four-eyes a publish is a request, whose id it answers. */
async function apply(client: ApiClient, change: PlannedChange): Promise<string | undefined> {
  const endpoints = endpointsOf(change.kind);
  // A change without an id is a creation.
  const id = change.id ?? (await client.call(endpoints.create, { body: change.input })).body.id;
  if (change.action === 'new version' || change.action === 'edit draft') await client.call(endpoints.update, { params: { id }, body: change.input });
  if (!change.publish) return undefined;
  const { body } = await client.call(endpoints.publish, { params: { id } });
  return 'approvalId' in body && typeof body.approvalId === 'string' ? body.approvalId : undefined;
}

/**
 * `cgp policies push <dir>`: makes the platform hold what the files say. Every file is read and
 * checked before anything is sent; then each change is applied. Pushing the same files again
 * changes nothing.
 */
export async function pushPolicies(folder: string, access: ApiAccess & { publish: boolean; dryRun: boolean }): Promise<string[]> {
  const files = await Promise.all((await policyFilesOf(folder)).map(readPolicyFile));
  const client = new ApiClient(access);
  const changes = await plan(client, files, access.publish);
  const lines: string[] = [];
  for (const change of changes) {
    const approvalId = access.dryRun ? undefined : await apply(client, change);
    lines.push(
      `${`${change.action}${change.publish ? ' + publish' : ''}`.padEnd(22)} ${change.kind.padEnd(6)} ${JSON.stringify(change.name)} (${change.file})` +
        (approvalId ? `: publish sent for approval (four-eyes), request ${approvalId}` : ''),
    );
  }
  const count = (action: Action) => changes.filter((change) => change.action === action).length;
  lines.push(
    `${access.dryRun ? 'dry run, nothing sent' : 'pushed'}: ${count('create')} create, ${count('new version')} new version, ${count('edit draft')} edit draft, ` +
      `${count('unchanged')} unchanged, ${changes.filter((change) => change.publish).length} publish`,
  );
  return lines;
}
