import { startReplication } from './replication.js';
import { seedBenchDatabase } from './seed.js';
import { startService, SERVICE_ROOT } from './service.js';
import { measure } from './measure.js';
import { stop, waitUntilAnswering } from './processes.js';
import { nodeOfLine } from './builds.js';
import { readdirSync, readFileSync, rmSync } from 'node:fs';

const path = process.argv[2] ?? '/v1/pets?limit=20';
const node = nodeOfLine('24');
const r = startReplication({ primary: 5491, standby: 5492 });
const top = (dir: string) => {
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  const prof = JSON.parse(readFileSync(`${dir}/${file}`, 'utf8')) as {
    nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount: number }[];
  };
  const by = new Map<string, number>();
  let total = 0;
  for (const n of prof.nodes) {
    const key = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.replace(/.*node_modules\//, '').replace('file:///work/main/', '')}:${n.callFrame.lineNumber}`;
    by.set(key, (by.get(key) ?? 0) + n.hitCount);
    total += n.hitCount;
  }
  return { by, total };
};
try {
  const db = await seedBenchDatabase(r.primaryUrl, 'petstore_prof', 10_000);
  const standby = new URL(db);
  standby.port = '5492';
  await new Promise((res) => setTimeout(res, 2000));
  const results: Record<string, { by: Map<string, number>; total: number; cpu: number }> = {};
  for (const setup of ['primary', 'replica']) {
    const dir = `/tmp/prof-${setup}`;
    rmSync(dir, { recursive: true, force: true });
    const child = startService(
      {
        PORT: '4151',
        DATABASE_URL: db,
        API_KEYS: 'bench-key',
        RATE_LIMIT: 'off',
        NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${dir}`,
        ...(setup === 'replica' ? { DATABASE_REPLICA_URLS: standby.toString() } : {}),
      },
      0,
      { root: SERVICE_ROOT, node },
    );
    await waitUntilAnswering('http://127.0.0.1:4151/readyz', {});
    const settings = { connections: 50, duration: 2, key: 'bench-key', core: 1, pets: 10_000 };
    await measure(child.pid ?? 0, 4151, [{ path, method: 'GET' }], settings);
    const m = await measure(child.pid ?? 0, 4151, [{ path, method: 'GET' }], { ...settings, duration: 8 });
    await stop(child);
    results[setup] = { ...top(dir), cpu: m.cpuUsPerRequest };
    console.log(setup, 'cpu µs/req', m.cpuUsPerRequest.toFixed(1), 'rps', m.rps);
  }
  const p = results.primary!, q = results.replica!;
  const keys = new Set([...p.by.keys(), ...q.by.keys()]);
  const rows = [...keys].map((k) => {
    const a = ((p.by.get(k) ?? 0) / p.total) * p.cpu;
    const b = ((q.by.get(k) ?? 0) / q.total) * q.cpu;
    return { k, a, b, d: b - a };
  });
  rows.sort((x, y) => y.d - x.d);
  for (const row of rows.slice(0, 30)) console.log(row.d.toFixed(2), row.a.toFixed(2), row.b.toFixed(2), row.k);
} finally {
  r.stop();
}
