import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const manifest = (path: string) =>
  JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as {
    dependencies: Record<string, string>;
  };

/**
 * The bench loads PGlite folders the service then opens, and its floor runs postgres.js with
 * the fixes in patches/, whose file names the version they apply to.
 */
describe("the bench's dependencies", () => {
  it.each(['@electric-sql/pglite', 'postgres'])(
    'pin %s at the version the service pins',
    (name) => {
      const service = manifest('../../package.json').dependencies[name];
      expect(service).toBeDefined();
      expect(manifest('../package.json').dependencies[name]).toBe(service);
    },
  );
});
