import type { ServerResponse } from 'node:http';
import type postgres from 'postgres';

/**
 * The floor's event streams (bench/floor-server.ts), the simplest way to follow changes as the
 * service does: the events of writes that commit within 20 ms (the service feed's interval) go
 * to every open stream together, one buffer built once for all of them; no resuming, no
 * filters, no log to read back.
 */
const FLUSH_INTERVAL_MS = 20;
const followers = new Set<ServerResponse>();
let pending = '';
let flushing: NodeJS.Timeout | undefined;

export function follow(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
  res.write(': stream open\n\n');
  followers.add(res);
  res.once('close', () => followers.delete(res));
}

function flush(): void {
  flushing = undefined;
  const chunk = Buffer.from(pending);
  pending = '';
  for (const res of followers) res.write(chunk);
}

/** Queues the frames of committed events for the next flush. */
export function broadcast(rows: postgres.Row[]): void {
  if (followers.size === 0) return;
  for (const row of rows) {
    const body = {
      id: String(row.id),
      type: row.type as string,
      occurredAt: (row.occurred_at as Date).toISOString(),
      data: row.data as unknown,
    };
    pending += `id: ${body.id}\nevent: ${body.type}\ndata: ${JSON.stringify(body)}\n\n`;
  }
  flushing ??= setTimeout(flush, FLUSH_INTERVAL_MS);
}
