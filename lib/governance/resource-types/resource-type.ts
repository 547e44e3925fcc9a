import { z } from 'zod';

import type { Settings } from '#lib/settings/index';
import { batchSize, DEFAULT_BATCH_SIZE, RESOURCE_TYPE_NAME } from '#lib/settings/schema';
import { serviceUrl } from '#lib/settings/values';

/** The seed's representation of a type without descriptor configuration. */
export const NO_DESCRIPTOR_CONFIGURATION = 'PLATFORM_no_descriptor_configuration_provided';
/** The page size asked of the perimeter resolver: the type's `batch-size`, else the default. */
export const pageSizeOf = (configured: number | null): number => configured ?? DEFAULT_BATCH_SIZE;

const NAME_RULE = 'a name of letters, digits, "_", "." or "-" (at most 128, starting with a letter or digit)';

/** A resource type as the service works with it, from settings or from the API. */
export interface ResourceTypeDefinition {
  name: string;
  displayName: string;
  /** Absent: no descriptor configuration (enrichment disabled; Evaluate callers give the id). */
  descriptor?: {
    resourceNameField: string;
    resourceDisplayNameFields: string[];
    resourceFilterField: string | null;
    resourceOwnerField: string | null;
    batchSize: number | null;
  };
  resolver: { url: string; path: string };
}

const field = (what: string) =>
  z
    .string({ error: `${what} must be a string` })
    .trim()
    .min(1, `${what} must not be empty`)
    .max(256, `${what} is longer than 256 characters`);

const httpUrl = serviceUrl('url', 'http://resolver:8080');

/** Body of POST /v1/computational-governance/resource-types. */
export const resourceTypeInput = z
  .strictObject({
    name: z.string({ error: 'name is required' }).regex(RESOURCE_TYPE_NAME, `name must be ${NAME_RULE}`),
    displayName: field('displayName').optional(),
    configuration: z
      .strictObject({
        resourceName: field('resourceName'),
        resourceDisplayName: z.union([field('resourceDisplayName'), z.array(field('resourceDisplayName'))]).optional(),
        resourceFilter: field('resourceFilter').optional(),
        resourceOwnerField: field('resourceOwnerField').optional().meta({ description: 'The descriptor field naming the owner, e.g. dataProductOwner' }),
        batchSize: batchSize().optional(),
      })
      .optional(),
    resolverConfiguration: z.strictObject(
      {
        url: httpUrl,
        path: z.string({ error: 'path must be a string' }).regex(/^\/\S*$/, 'path must start with "/"'),
      },
      { error: 'resolverConfiguration { url, path } is required' },
    ),
  })
  .meta({ id: 'ResourceTypeInput' });

export type ResourceTypeInput = z.output<typeof resourceTypeInput>;

export const resourceTypeRepresentation = z
  .object({
    name: z.string(),
    displayName: z.string(),
    descriptorConfiguration: z.object({
      resourceNameField: z.string(),
      resourceDisplayNameFields: z.array(z.string()),
      resourceFilterField: z.string().nullable(),
      resourceOwnerField: z.string().nullable(),
      batchSize: z.number().int(),
    }),
    resolverConfiguration: z.object({ url: z.string(), path: z.string() }),
    source: z.enum(['settings', 'api']),
    createdAt: z.string(),
    createdBy: z.string(),
    updatedAt: z.string(),
    updatedBy: z.string(),
  })
  .meta({ id: 'ResourceType' });

export type ResourceTypeRepresentation = z.output<typeof resourceTypeRepresentation>;

export const resourceTypeName = z.object({ name: z.string().regex(RESOURCE_TYPE_NAME, `name must be ${NAME_RULE}`) });

const asList = (value: string | string[] | undefined) => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

export function fromInput(input: ResourceTypeInput): ResourceTypeDefinition {
  return {
    name: input.name,
    displayName: input.displayName ?? input.name,
    descriptor: input.configuration && {
      resourceNameField: input.configuration.resourceName,
      resourceDisplayNameFields: asList(input.configuration.resourceDisplayName),
      resourceFilterField: input.configuration.resourceFilter ?? null,
      resourceOwnerField: input.configuration.resourceOwnerField ?? null,
      batchSize: input.configuration.batchSize ?? null,
    },
    resolver: { url: input.resolverConfiguration.url, path: input.resolverConfiguration.path },
  };
}

export function fromSettings(entry: Settings['resourceTypes'][number]): ResourceTypeDefinition {
  return {
    name: entry.name,
    displayName: entry.displayName ?? entry.name,
    descriptor: entry.configuration && {
      resourceNameField: entry.configuration.resourceName,
      resourceDisplayNameFields: entry.configuration.resourceDisplayName ?? [],
      resourceFilterField: entry.configuration.resourceFilter ?? null,
      resourceOwnerField: entry.configuration.resourceOwnerField ?? null,
      batchSize: entry.configuration.batchSize ?? null,
    },
    resolver: { url: entry.resolverConfiguration.url, path: entry.resolverConfiguration.path },
  };
}
