import type { Database } from '../../../db/database.js';
import { recordAttempts, type FinishedAttempt, type RecordedAttempt } from '../storage/attempts.js';

/** Outcomes one statement writes at most. */
const MAX_BATCH = 200;

interface Waiting {
  attempt: FinishedAttempt;
  resolve: (answer: RecordedAttempt) => void;
  reject: (error: unknown) => void;
}

/**
 * Writes attempts' outcomes as they end, together: while one statement is being written, the
 * attempts that end meanwhile wait for it and go in the next, all in one (a group commit). An
 * outcome that finds no write under way is written at once, so batching adds no wait; under
 * load, a statement and a commit serve many deliveries rather than one each.
 */
export function outcomeWriter(
  db: Database,
  /** Told how long each statement took. */
  wrote: (ms: number) => void = () => undefined,
): (attempt: FinishedAttempt) => Promise<RecordedAttempt> {
  const waiting: Waiting[] = [];
  let writing = false;

  async function writeWaiting() {
    writing = true;
    while (waiting.length > 0) {
      const batch = waiting.splice(0, MAX_BATCH);
      const startedAt = performance.now();
      try {
        const answers = await recordAttempts(
          db,
          batch.map(({ attempt }) => attempt),
        );
        batch.forEach(({ resolve }, i) => {
          resolve(answers[i] ?? { recorded: false, failingSince: null });
        });
      } catch (error) {
        for (const { reject } of batch) reject(error);
      }
      wrote(performance.now() - startedAt);
    }
    writing = false;
  }

  return (attempt) =>
    new Promise((resolve, reject) => {
      waiting.push({ attempt, resolve, reject });
      if (!writing) void writeWaiting();
    });
}
