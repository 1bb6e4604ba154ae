import { createRequire } from 'node:module';
import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** pino-pretty is a development dependency: a production install logs JSON even on a terminal. */
function prettyAvailable(): boolean {
  try {
    createRequire(import.meta.url).resolve('pino-pretty');
    return true;
  } catch {
    return false;
  }
}

let stampedSecond = -1;
/** `,"time":"YYYY-MM-DDTHH:mm:ss.` of the second being logged. */
let secondStamp = '';

/**
 * pino's isoTime, with the date formatted once per second and only the milliseconds appended
 * per line: every request writes a line, and formatting a whole Date for each showed in
 * profiles (docs/performance.md).
 */
function isoTime(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== stampedSecond) {
    stampedSecond = second;
    secondStamp = `,"time":"${new Date(second * 1000).toISOString().slice(0, 20)}`;
  }
  return `${secondStamp}${String(now % 1000).padStart(3, '0')}Z"`;
}

/** JSON lines; pretty only when a person is watching a terminal. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    // pid tells the processes of one instance apart when WORKERS > 1.
    base: { service: 'petstore', pid: process.pid },
    timestamp: isoTime,
    // Credentials never go into a log line on purpose; these catch a request or its headers
    // logged whole. Literal paths only: pino runs a wildcard-first path ('*.authorization') over
    // every key of every line.
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', 'err.headers.authorization'],
      censor: '[redacted]',
    },
  };
  if (destination) return pino(options, destination);
  if (process.stdout.isTTY && prettyAvailable()) {
    return pino({ ...options, transport: { target: 'pino-pretty' } });
  }
  return pino(options, bufferedStdout());
}

/** A line waits at most this long in the buffer before it is written. */
const LOG_FLUSH_INTERVAL_MS = 500;

/**
 * Buffered: a write per request line was a large share of a busy server's CPU (and an
 * asynchronous write wakes a libuv thread on the same core), so lines go out in synchronous
 * 4 KiB writes, and at least every LOG_FLUSH_INTERVAL_MS when traffic is light. What is left
 * is written at exit.
 */
function bufferedStdout(): DestinationStream {
  const destination = pino.destination({ dest: 1, sync: true, minLength: 4096 });
  const flusher = setInterval(() => {
    destination.flush();
  }, LOG_FLUSH_INTERVAL_MS).unref();
  process.once('exit', () => {
    clearInterval(flusher);
    destination.flushSync();
  });
  return destination;
}
