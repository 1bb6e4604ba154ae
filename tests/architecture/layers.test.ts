import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

/**
 * The lint rules that keep the layers (eslint.config.js): an import that points up fails,
 * whether declared or a dynamic `import()`; one that points down or stays within its layer passes.
 */
// The files linted here do not exist, so the type-aware rules, which need them in the
// TypeScript project, are off; the layer rule reads only the import's text.
const eslint = new ESLint({
  overrideConfig: { ...tseslint.configs.disableTypeChecked, files: ['**/*.ts'] },
});

const LAYER_RULES = new Set(['no-restricted-imports', 'no-restricted-syntax']);

/** The same module named three ways: a static import, a dynamic one, and one in a template. */
const FORMS = {
  static: (specifier: string) => `export * from '${specifier}';\n`,
  dynamic: (specifier: string) => `export const load = () => import('${specifier}');\n`,
  template: (specifier: string) => `export const load = () => import(\`${specifier}\`);\n`,
};

async function layerErrors(filePath: string, specifier: string): Promise<string[]> {
  const messages = await Promise.all(
    Object.values(FORMS).map(async (form) => {
      const [result] = await eslint.lintText(form(specifier), { filePath });
      return (result?.messages ?? []).filter((message) => LAYER_RULES.has(message.ruleId ?? ''));
    }),
  );
  return messages.flat().map((message) => message.message);
}

describe('layers', () => {
  it.each([
    ['server/support/clock.ts', '../domain/schemas/pet.js'],
    ['server/support/clock.ts', '../../db/client.js'],
    ['db/queries/clock.ts', '../../server/support/logger.js'],
    ['server/domain/events/clock.ts', '../../operations/context.js'],
    ['server/operations/clock.ts', '../surfaces/trpc/init.js'],
    ['server/surfaces/http/clock.ts', '../../process/config.js'],
    ['server/webhooks/storage/clock.ts', '../domain/settings.js'],
    ['server/webhooks/storage/clock.ts', '../../support/logger.js'],
    ['server/webhooks/domain/clock.ts', '../operations/endpoints.js'],
    ['server/webhooks/operations/clock.ts', '../../surfaces/trpc/init.js'],
  ])('%s may not import %s, statically or dynamically', async (file, specifier) => {
    expect(await layerErrors(file, specifier)).toHaveLength(Object.keys(FORMS).length);
  });

  it.each([
    ['server/domain/events/clock.ts', '../../support/logger.js'],
    ['server/domain/events/clock.ts', '../../../db/client.js'],
    ['server/operations/clock.ts', '../domain/schemas/pet.js'],
    ['server/surfaces/http/clock.ts', '../../operations/context.js'],
    ['server/process/clock.ts', '../surfaces/http/handler.js'],
    ['server/surfaces/http/clock.ts', '@trpc/server/http'],
    ['server/webhooks/domain/clock.ts', '../storage/schema.js'],
    ['server/webhooks/operations/clock.ts', '../../operations/define.js'],
    ['server/webhooks/module.ts', './domain/delivery-worker.js'],
  ])('%s may import %s', async (file, specifier) => {
    expect(await layerErrors(file, specifier)).toEqual([]);
  });
});
