import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { inCI } from './ci.js';

const CHROMIUM = '/usr/bin/chromium';

/** The one command that installs the browser the /docs test drives. */
export const BROWSER_INSTALL_COMMAND = 'bash scripts/ci-packages.sh';

/**
 * Why a browser test should be skipped here, or undefined when it must run. It runs whenever
 * Chromium is installed, and always in CI, where a missing browser is a failure (see
 * launchChromium); only a machine without the browser and outside CI skips it, with a note
 * the test summary shows.
 */
export function browserSkipNote(): string | undefined {
  if (existsSync(CHROMIUM) || inCI()) return undefined;
  return `Chromium is not installed at ${CHROMIUM}; to run this test: ${BROWSER_INSTALL_COMMAND}`;
}

/** Without the networking flags Chromium reaches for Google's hosts, which this network refuses. */
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Debian's Chromium with a fresh profile; fails when it is not installed (tests skip first). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}; run ${BROWSER_INSTALL_COMMAND} (apt-get install chromium).`,
    );
  }
  const profile = await mkdtemp(join(tmpdir(), 'petstore-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
