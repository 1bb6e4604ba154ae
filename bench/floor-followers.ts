import type { ServerResponse } from 'node:http';
import type postgres from 'postgres';

/**
 * The floor's event streams (bench/floor-server.ts), the simplest way to follow changes: each
 * write's events go to every open stream as the write commits, one buffer built once for all
 * of them; no resuming, no filters, no batching of writes that commit together.
 */
const followers = new Set<ServerResponse>();

export function follow(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
  res.write(': stream open\n\n');
  followers.add(res);
  res.once('close', () => followers.delete(res));
}

/** The frames of committed events, built once each, written to every follower. */
export function broadcast(rows: postgres.Row[]): void {
  if (followers.size === 0) return;
  let frames = '';
  for (const row of rows) {
    const body = {
      id: String(row.id),
      type: row.type as string,
      occurredAt: (row.occurred_at as Date).toISOString(),
      data: row.data as unknown,
    };
    frames += `id: ${body.id}\nevent: ${body.type}\ndata: ${JSON.stringify(body)}\n\n`;
  }
  const chunk = Buffer.from(frames);
  for (const res of followers) res.write(chunk);
}
