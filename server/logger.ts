import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** JSON lines; pretty only when a person is watching a terminal. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'petstore' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['req.headers.authorization', '*.authorization'], censor: '[redacted]' },
  };
  if (destination) return pino(options, destination);
  if (process.stdout.isTTY) return pino({ ...options, transport: { target: 'pino-pretty' } });
  return pino(options);
}
