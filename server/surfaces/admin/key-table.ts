import type { ApiKeyRecord } from '../../../db/queries/api-keys.js';

const COLUMNS = ['ID', 'NAME', 'SCOPE', 'CREATED', 'LAST USED', 'STATUS'] as const;

/** Minute precision is enough to recognise a key, and keeps the table narrow. */
function when(date: Date | null): string {
  return date ? `${date.toISOString().slice(0, 16).replace('T', ' ')}Z` : '-';
}

/** A plain aligned table for people; `--json` is the form for scripts. */
export function formatKeyTable(keys: readonly ApiKeyRecord[]): string {
  if (keys.length === 0) return 'No API keys.\n';
  const rows = keys.map((key) => [
    key.id,
    key.name,
    key.scope,
    when(key.createdAt),
    when(key.lastUsedAt),
    key.revokedAt ? `revoked ${when(key.revokedAt)}` : 'active',
  ]);
  const widths = COLUMNS.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  return `${[line(COLUMNS), ...rows.map(line)].join('\n')}\n`;
}
