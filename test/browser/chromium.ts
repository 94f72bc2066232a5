import { existsSync } from 'node:fs';

/** Debian's Chromium, as a stock machine has it: no emoji font, the fonts its packages bring. */
export const CHROMIUM = '/usr/bin/chromium';

/** Chromium's background services cannot reach the network here, and must not try. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Why the browser tests are skipped, or false when they can run. */
export const missing = existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing (apt-get install chromium; .ci/run installs it)`;
