import { availableParallelism, loadavg } from 'node:os';

/** A load average above this on the machine's cores means something else is running (1.5 on 2). */
export const QUIET_LOAD = 0.75 * availableParallelism();

/**
 * Waits up to `maxWaitMs` for the one-minute load average to fall to QUIET_LOAD (a build or a
 * test run just before leaves it high for a minute or two) and answers the load it ended at.
 */
export async function waitForQuiet(maxWaitMs = 180_000): Promise<number> {
  const deadline = Date.now() + maxWaitMs;
  let load = loadavg()[0] ?? 0;
  while (load > QUIET_LOAD && Date.now() < deadline) {
    process.stdout.write(`load average ${load.toFixed(1)}: waiting for the machine to settle\n`);
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    load = loadavg()[0] ?? 0;
  }
  return load;
}
