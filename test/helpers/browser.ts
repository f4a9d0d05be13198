// Debian's chromium (/usr/bin/chromium, scripts/install-test-peers.sh) driven by playwright-core:
// headless, a new empty profile, no background traffic. Every console message of type error
// and every uncaught page error is collected for the test to check.
import { mkdtempSync, rmSync } from 'node:fs';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.DRIVERBOX_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export function chromiumInstalled(): boolean {
  return existsSync(CHROMIUM_PATH);
}

export interface BrowserSession {
  context: BrowserContext;
  page: Page;
  /** Console errors and page errors, as text, in order. */
  errors: string[];
  close(): Promise<void>;
}

export async function openBrowser(options: { width?: number; height?: number } = {}): Promise<BrowserSession> {
  const profile = mkdtempSync(path.join(tmpdir(), 'driverbox-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
    timeout: 20_000,
  });
  // A blocked style or script says what it was (the console message alone does not).
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      const target = e.target instanceof Element ? e.target.outerHTML.slice(0, 120) : String(e.target);
      console.error(`CSP ${e.violatedDirective} blocked ${e.sample || '(no sample)'} at ${e.sourceFile}:${e.lineNumber} on ${target}`);
    });
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  const watch = (p: Page) => {
    p.on('console', (message) => {
      if (message.type() === 'error') errors.push(`console: ${message.text()}`);
    });
    p.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  };
  watch(page);
  context.on('page', watch);
  return {
    context,
    page,
    errors,
    close: async () => {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
