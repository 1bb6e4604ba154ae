import { readFile } from 'node:fs/promises';
import { format, resolveConfig } from 'prettier';
import type { AnyOperation } from '../server/operations/define.js';
import { operations } from '../server/operations/registry.js';

/**
 * The Markdown tables of operations that the docs show, made from the registry by `npm run
 * openapi` between `<!-- operations:NAME -->` and `<!-- /operations -->`; the committed
 * interface test fails when a page differs from what this makes.
 */

type Entry = [procedure: string, operation: AnyOperation];

const code = (text: string) => `\`${text}\``;

function operationRows(entries: Entry[]): string[] {
  return [
    '| operation | REST | tRPC | scope | stability |',
    '| --- | --- | --- | --- | --- |',
    ...entries.map(([procedure, { rest, scope }]) =>
      [
        rest?.operationId ?? '—',
        rest ? code(`${rest.method} /v1${rest.path}`) : '—',
        code(procedure),
        scope,
        rest?.stability ?? '—',
      ].join(' | '),
    ),
  ].map((row) => (row.startsWith('|') ? row : `| ${row} |`));
}

function scopeRows(entries: Entry[]): string[] {
  const named = ([procedure, { rest }]: Entry) =>
    rest ? `${rest.operationId} (${code(procedure)})` : code(procedure);
  return [
    '| scope | may call |',
    '| --- | --- |',
    `| \`read\` | ${entries
      .filter(([, op]) => op.scope === 'read')
      .map(named)
      .join(', ')} |`,
    `| \`write\` | every operation: also ${entries
      .filter(([, op]) => op.scope === 'write')
      .map(named)
      .join(', ')} |`,
  ];
}

const all: Entry[] = [...operations];

const TABLES: Record<string, () => string[]> = {
  all: () => operationRows(all),
  orders: () => operationRows(all.filter(([procedure]) => procedure.startsWith('orders.'))),
  scopes: () => scopeRows(all),
};

export const OPERATION_TABLE_PAGES = ['README.md', 'docs/store.md', 'docs/api-keys.md'];

const REGION = /(<!-- operations:(\w+) -->\n)[\s\S]*?(<!-- \/operations -->)/g;

/** The page with every region's table made anew, formatted as the repository's Prettier does. */
export async function renderOperationTables(path: string): Promise<string> {
  const text = (await readFile(path, 'utf8')).replace(
    REGION,
    (_, open: string, name: string, close: string) => {
      const table = TABLES[name];
      if (!table) throw new Error(`${path}: no operation table is called ${name}`);
      return `${open}\n${table().join('\n')}\n\n${close}`;
    },
  );
  return format(text, { ...(await resolveConfig(path)), filepath: path });
}
