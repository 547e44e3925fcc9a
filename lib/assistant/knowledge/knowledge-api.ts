import { z } from 'zod';

import { SOURCE_TYPES } from './knowledge-chunk';

export const indexRefreshAnswer = z
  .object({
    embedded: z.number().int().meta({ description: 'chunks embedded now: new, changed, or embedded by another model' }),
    unchanged: z.number().int().meta({ description: 'chunks whose text and embedder model are as stored' }),
    removed: z.number().int().meta({ description: 'chunks of sources that are gone' }),
  })
  .meta({ id: 'KnowledgeIndexRefresh' });

export const knowledgeIndexState = z
  .object({
    chunks: z.number().int(),
    sourceTypes: z.object(Object.fromEntries(SOURCE_TYPES.map((type) => [type, z.number().int()])) as Record<(typeof SOURCE_TYPES)[number], z.ZodNumber>),
    embedderModel: z.string().nullable().meta({ description: 'the model of the last refresh; null before the first' }),
    refreshedAt: z.string().nullable().meta({ description: 'when the index was last refreshed; null before the first' }),
    staleSources: z.number().int().meta({ description: 'sources changed since, that the scheduled refresher will embed (within about a minute)' }),
  })
  .meta({ id: 'KnowledgeIndex' });

export type KnowledgeIndexState = z.output<typeof knowledgeIndexState>;
