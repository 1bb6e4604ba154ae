import { readFileSync } from 'node:fs';

/**
 * The node flags `npm start` runs the service with (the heap cap), read from package.json so
 * the benchmark and the process tests run the service the way production does.
 */
export function startNodeFlags(): string[] {
  const manifest = JSON.parse(
    readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
  ) as { scripts: { start: string } };
  const [command, ...rest] = manifest.scripts.start.split(/\s+/);
  if (command !== 'node') {
    throw new Error(`npm start must run node directly: ${manifest.scripts.start}`);
  }
  return rest.filter((argument) => argument.startsWith('--'));
}
