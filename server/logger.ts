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

/** JSON lines; pretty only when a person is watching a terminal. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    // pid tells the processes of one instance apart when WORKERS > 1.
    base: { service: 'petstore', pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['req.headers.authorization', '*.authorization'], censor: '[redacted]' },
  };
  if (destination) return pino(options, destination);
  if (process.stdout.isTTY && prettyAvailable()) {
    return pino({ ...options, transport: { target: 'pino-pretty' } });
  }
  // Asynchronous: lines that queue up while a write is in flight go out in one write instead of
  // a syscall per request; nothing waits for a buffer to fill, and pino flushes it at exit.
  return pino(options, pino.destination({ dest: 1, sync: false }));
}
