// `npm start`'s first step: build only when dist/ is missing or older than what it is built
// from, so that a start after `npm install` (whose `prepare` built it) runs at once, and a
// start after an edit or a pull still runs the code checked out. Plain JavaScript: it runs
// before any build, and in production, where tsx is not installed.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';

/** Written by `npm run build` as its last step: the time of the last complete build. */
const STAMP = 'dist/.built';
const SOURCES = [
  'server',
  'client',
  'db',
  'scripts',
  'drizzle',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
];

/** The latest change under a path: a folder's own time changes when an entry is removed. */
function latestChange(path) {
  let stats;
  try {
    stats = statSync(path);
  } catch {
    return 0;
  }
  if (!stats.isDirectory()) return stats.mtimeMs;
  let latest = stats.mtimeMs;
  for (const entry of readdirSync(path)) latest = Math.max(latest, latestChange(join(path, entry)));
  return latest;
}

const built = latestChange(STAMP);
const changed = Math.max(...SOURCES.map(latestChange));
if (built === 0 || changed > built) {
  process.stderr.write(built === 0 ? 'No build yet: building\n' : 'Sources changed: rebuilding\n');
  const { status } = spawnSync('npm', ['run', 'build'], { stdio: 'inherit' });
  process.exit(status ?? 1);
}
