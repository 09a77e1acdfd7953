import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { ensureDebianPackages } from '@svc/cri';

const CHROMIUM = '/usr/bin/chromium';

/**
 * Debian's Chromium, installed when missing and running as root (Playwright never downloads a
 * browser here). Returns why it cannot be had, or undefined when it is there.
 */
export function chromiumUnavailable(): string | undefined {
  return ensureDebianPackages([{ name: 'chromium', provides: CHROMIUM }]);
}

export interface HeadlessChromium {
  browser: Browser;
  /** A fresh context (its own storage) that trusts the test server's self-signed certificate. */
  context(): Promise<BrowserContext>;
  close(): Promise<void>;
}

/**
 * Headless Chromium, kept off every network but loopback: no background services, updates, sync or
 * QUIC, which a closed network would refuse over and over. Playwright starts it on a new, empty
 * profile directory of its own (its --user-data-dir), removed when it closes.
 */
export async function launchChromium(): Promise<HeadlessChromium> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    browser,
    context: () => browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1400, height: 900 } }),
    close: () => browser.close(),
  };
}
