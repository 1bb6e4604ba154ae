import { describe, expect, it } from 'vitest';
import { createLogger } from '../../server/support/logger.js';
import { logSink, startTestServer, TEST_KEY } from '../helpers/server.js';

const SECRET = 'Bearer never-in-a-log-0123456789';

describe('credentials in log lines', () => {
  it('are censored where a request, its headers or an error carrying headers is logged whole', async () => {
    const { sink, logs } = logSink();
    const logger = createLogger('info', sink);
    logger.info({ req: { method: 'GET', headers: { authorization: SECRET, host: 'a' } } }, 'req');
    logger.info({ headers: { authorization: SECRET } }, 'headers');
    logger.error({
      err: Object.assign(new Error('upstream'), { headers: { authorization: SECRET } }),
    });
    logger.flush();
    await new Promise((resolve) => setImmediate(resolve));

    expect(logs).toHaveLength(3);
    expect(JSON.stringify(logs)).not.toContain('never-in-a-log');
    expect(logs[0]).toMatchObject({
      req: { method: 'GET', headers: { authorization: '[redacted]', host: 'a' } },
    });
    expect(logs[1]).toMatchObject({ headers: { authorization: '[redacted]' } });
    expect(logs[2]).toMatchObject({
      err: { message: 'upstream', headers: { authorization: '[redacted]' } },
    });
  });

  it('never hold the API key of a request, answered or refused', async () => {
    const server = await startTestServer();
    try {
      const good = { authorization: `Bearer ${TEST_KEY}` };
      const bad = { authorization: 'Bearer not-a-key-but-secret-too' };
      expect((await fetch(`${server.baseUrl}/pets?limit=1`, { headers: good })).status).toBe(200);
      expect((await fetch(`${server.baseUrl}/pets`, { headers: bad })).status).toBe(401);
      await server.app.close();
      const written = JSON.stringify(server.logs);
      expect(server.logs.length).toBeGreaterThanOrEqual(2);
      expect(written).not.toContain(TEST_KEY);
      expect(written).not.toContain('not-a-key-but-secret-too');
    } finally {
      await server.close();
    }
  });
});
