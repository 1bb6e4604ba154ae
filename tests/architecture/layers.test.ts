import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

/**
 * The lint rule that keeps the layers (eslint.config.js): an import that points up fails,
 * one that points down or stays within its layer passes.
 */
// The files linted here do not exist, so the type-aware rules, which need them in the
// TypeScript project, are off; the layer rule reads only the import's text.
const eslint = new ESLint({
  overrideConfig: { ...tseslint.configs.disableTypeChecked, files: ['**/*.ts'] },
});

async function layerErrors(filePath: string, specifier: string): Promise<string[]> {
  const [result] = await eslint.lintText(`export * from '${specifier}';\n`, { filePath });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === 'no-restricted-imports')
    .map((message) => message.message);
}

describe('layers', () => {
  it.each([
    ['server/support/clock.ts', '../domain/schemas/pet.js'],
    ['server/support/clock.ts', '../../db/client.js'],
    ['db/queries/clock.ts', '../../server/support/logger.js'],
    ['server/domain/events/clock.ts', '../../operations/context.js'],
    ['server/operations/clock.ts', '../surfaces/trpc/init.js'],
    ['server/surfaces/http/clock.ts', '../../process/config.js'],
  ])('%s may not import %s', async (file, specifier) => {
    expect(await layerErrors(file, specifier)).toHaveLength(1);
  });

  it.each([
    ['server/domain/events/clock.ts', '../../support/logger.js'],
    ['server/domain/events/clock.ts', '../../../db/client.js'],
    ['server/operations/clock.ts', '../domain/schemas/pet.js'],
    ['server/surfaces/http/clock.ts', '../../operations/context.js'],
    ['server/process/clock.ts', '../surfaces/http/handler.js'],
    ['server/surfaces/http/clock.ts', '@trpc/server/http'],
  ])('%s may import %s', async (file, specifier) => {
    expect(await layerErrors(file, specifier)).toEqual([]);
  });
});
