import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/process/config.js';
import { ConfigError } from '../../server/support/errors.js';

function messageFor(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error(`${JSON.stringify(env)} was accepted`);
}

describe('configuration errors', () => {
  it.each([
    [{ PORT: 'abc' }, 'PORT="abc": expected a whole number from 0 to 65535'],
    [{ PORT: '70000' }, 'PORT="70000": expected a whole number from 0 to 65535'],
    [
      { DATABASE_POOL_MAX: '1.5' },
      'DATABASE_POOL_MAX="1.5": expected a whole number from 1 to 1000',
    ],
    [{ METRICS_PORT: 'nine' }, 'METRICS_PORT="nine": expected a whole number from 0 to 65535'],
    [{ WORKERS: 'many' }, 'WORKERS="many": expected auto or a whole number from 1 to 256'],
    [{ TRUST_PROXY: 'maybe' }, 'TRUST_PROXY="maybe": expected true or false'],
    [
      { LOG_LEVEL: 'loud' },
      'LOG_LEVEL="loud": expected fatal, error, warn, info, debug, trace or silent',
    ],
    [{ SHUTDOWN_TIMEOUT: '-1' }, 'SHUTDOWN_TIMEOUT="-1": expected seconds from 0 to 3600'],
    [{ EVENTS_RETENTION: '10s' }, 'EVENTS_RETENTION="10s": expected at least a minute'],
    [{ CORS_ORIGINS: 'http://a.example/x' }, 'CORS_ORIGINS="http://a.example/x": each origin'],
  ])('names the variable, its value and the form expected: %o', (env, expected) => {
    expect(messageFor(env)).toContain(expected);
  });

  it('never repeats a value that may hold a credential', () => {
    const message = messageFor({
      DATABASE_URL: 'mysql://user:hunter2@db/x',
      DATABASE_DIRECT_URL: 'mysql://user:swordfish@db/x',
      CURSOR_SECRET: 'short',
    });
    expect(message).toContain('DATABASE_URL: expected postgres://');
    expect(message).toContain('DATABASE_DIRECT_URL: expected postgres://');
    expect(message).toContain('CURSOR_SECRET: expected at least 32 characters');
    expect(message).not.toMatch(/hunter2|swordfish|short"/);
  });
});

describe('PUBLIC_BASE_URL unset', () => {
  it.each([
    [{}, 'http://127.0.0.1:3000/v1'],
    [{ HOST: '192.0.2.7', PORT: '8080' }, 'http://192.0.2.7:8080/v1'],
    [{ HOST: '::1' }, 'http://[::1]:3000/v1'],
    [{ HOST: '0.0.0.0' }, 'http://localhost:3000/v1'],
  ])('names the address the service listens on: %o', (env, url) => {
    expect(loadConfig(env).PUBLIC_BASE_URL).toBe(url);
  });
});
