import { z } from 'zod';

/** RFC 9457 problem document as this API sends it (for the OpenAPI document). */
export const problemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    errors: z
      .array(
        z.object({
          path: z.string(),
          message: z.string(),
          line: z.number().int().optional().meta({ description: "Where in the field's text the error is (1-based): a CUE script's compile error" }),
          column: z.number().int().optional().meta({ description: 'The column on that line (1-based), when known' }),
        }),
      )
      .optional(),
    requestId: z.string().optional(),
  })
  .meta({ id: 'Problem' });
