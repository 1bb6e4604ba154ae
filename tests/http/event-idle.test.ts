import postgres from 'postgres';
import { afterAll, expect, it } from 'vitest';
import { describeOnPostgres } from '../helpers/database.js';
import { followEvents, type EventFollower } from '../helpers/events.js';
import { TEST_KEY, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Which of the service's connections ran a statement since `since` (a database timestamp):
 * pg_stat_activity's state_change moves whenever a connection starts or finishes one.
 */
async function busySince(sql: postgres.Sql, since: Date): Promise<string[]> {
  const rows = await sql<{ query: string }[]>`
    select query from pg_stat_activity
    where datname = current_database() and application_name = 'petstore'
      and state_change > ${since}`;
  return rows.map((row) => row.query);
}

/** pg_stat_activity shows other connections' statements: PostgreSQL only. */
describeOnPostgres('idle event streams (PostgreSQL)', () => {
  let server: TestServer | undefined;
  let sql: postgres.Sql | undefined;
  afterAll(async () => {
    await sql?.end();
    await server?.close();
  });

  it('cost no read of the log while nothing changes, only the key check; a change costs the feed one read', async () => {
    server = await startTestServer({ eventStreamsPerKey: 50 });
    const { options } = server.database;
    if (options.kind !== 'postgres') throw new Error('PostgreSQL only');
    sql = postgres(options.url, { max: 1, onnotice: () => undefined });
    const followers: EventFollower[] = [];
    for (let i = 0; i < 20; i++) followers.push(await followEvents(server, TEST_KEY));
    // A settling time, kept on purpose: once LISTEN is in place the feed reads the log once
    // (its onlisten callback), and no event a test can see says when that read is done.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const [{ now } = { now: new Date() }] = await sql<{ now: Date }[]>`select now()`;

    // The point of the test: 2 s of idle streams, in which nothing but key checks may run.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    // Only the process's one check of its streams' keys, every 500 ms for all of them (a
    // revoked key's streams end within 1 s), and the webhook worker's look for work on its own
    // tables (docs/webhooks.md): no read of the log, no statement per stream.
    const idle = await busySince(sql, now);
    const background = idle.filter((query) =>
      /from "api_keys"|^\s*(select exists \(select 1 from webhook_endpoints|with endpoint as)/.test(
        query,
      ),
    );
    expect(idle.filter((query) => !background.includes(query))).toEqual([]);

    const created = await server.api<{ id: number }>('POST', '/v1/pets', {
      body: { name: 'Wakes the feed', categoryId: 1 },
    });
    await Promise.all(followers.map((follower) => follower.until('pet.created', created.body.id)));
    // The create itself and the one shared read of the log: not one read per stream.
    const statements = await busySince(sql, now);
    const reads = statements.filter((query) => /from "events"/.test(query));
    expect(reads.length).toBeLessThanOrEqual(1);
    for (const follower of followers) follower.close();
  });
});
