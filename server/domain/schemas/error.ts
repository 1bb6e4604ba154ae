import { z } from 'zod';

export const ErrorSchema = z
  .object({
    code: z
      .string()
      .meta({ description: 'Machine-readable error code.', examples: ['BAD_REQUEST'] }),
    message: z.string().meta({ description: 'Human-readable description.' }),
    status: z
      .int()
      .min(400)
      .max(599)
      .meta({ description: 'The HTTP status code of the response.', examples: [400] }),
    issues: z
      .array(
        z.object({
          path: z.string().meta({
            description: 'Dotted path of the offending field; empty for the whole input.',
          }),
          message: z.string(),
        }),
      )
      .optional()
      .meta({ description: 'Present on validation errors: one entry per offending field.' }),
  })
  .meta({ id: 'Error', description: 'The body of every error response.' });

export type ErrorBody = z.infer<typeof ErrorSchema>;
