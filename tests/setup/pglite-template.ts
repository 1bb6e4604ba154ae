import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../db/client.js';

/**
 * The pglite project's template: one in-memory database, migrated and dumped as the service's
 * backups are, that every test file's database is unpacked from (tests/helpers/database.ts).
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const handle = await openDatabase({ kind: 'pglite', dataDir: 'memory://' });
  const folder = mkdtempSync(join(tmpdir(), 'petstore-template-'));
  try {
    await handle.migrate();
    const archive = await handle.dump?.();
    if (!archive) throw new Error('the embedded database could not be dumped');
    const file = join(folder, 'template.tar.gz');
    writeFileSync(file, Buffer.from(await archive.arrayBuffer()));
    project.provide('pgliteTemplate', file);
  } finally {
    await handle.close();
  }
  return () => {
    rmSync(folder, { recursive: true, force: true });
  };
}
