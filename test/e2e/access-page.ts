/**
 * The access review page (platform-access review --html) in Debian's chromium through puppeteer-core, for its
 * end-to-end test and the bench: chromium started with the flags this machine needs and a fresh profile; a page
 * opened with every request recorded (a self-contained page makes none but its own); and the times a reader waits,
 * measured in the page with the Performance API: the first paint, the tree drawn, and a filter's result (from the
 * input event until the DOM is updated and laid out, and a frame has been drawn).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import puppeteer, { type Browser, type Page } from "puppeteer-core";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

// The repository's type check has no DOM library: what the functions run in the page use, declared for them alone.
interface Control {
  value: string;
  checked: boolean;
  dispatchEvent(event: unknown): boolean;
}
declare const document: {
  getElementById(id: string): Control | null;
  body: { getBoundingClientRect(): unknown };
};
declare function requestAnimationFrame(callback: () => void): number;

export interface Chromium {
  browser: Browser;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<Chromium> {
  if (!fs.existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (scripts/test.sh does it)`);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "access-page-chromium-"));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
      `--user-data-dir=${profile}`,
    ],
  });
  return {
    browser,
    close: async () => {
      await browser.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

export interface OpenedPage {
  page: Page;
  /** Every URL the page requested, itself first. */
  requests: string[];
  /** Errors thrown by the page's script. */
  errors: string[];
  /** ms from navigation start: first contentful paint, and the tree drawn by the page's script. */
  firstPaintMs: number;
  treeMs: number;
}

/** Opens `file` in a new tab of `viewport` and waits for it to be drawn. */
export async function openPage(
  browser: Browser,
  file: string,
  viewport = { width: 1280, height: 800 },
): Promise<OpenedPage> {
  const page = await browser.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  page.on("request", (r) => void requests.push(r.url()));
  page.on("pageerror", (e) => void errors.push(String(e)));
  await page.setViewport(viewport);
  await page.goto(`file://${file}`, { waitUntil: "load" });
  // The paint entry is recorded once a frame has been drawn: wait for it (a page never painted fails the budget).
  const times = await page.evaluate(
    () =>
      new Promise<{ firstPaintMs: number; treeMs: number }>((resolve) => {
        const treeMs = performance.getEntriesByName("review-tree-rendered")[0]?.startTime ?? NaN;
        const done = (firstPaintMs: number) => resolve({ firstPaintMs, treeMs });
        setTimeout(() => done(NaN), 10_000);
        new PerformanceObserver((list, observer) => {
          const paint = list.getEntries().find((e) => e.name === "first-contentful-paint");
          if (paint === undefined) return;
          observer.disconnect();
          done(paint.startTime);
        }).observe({ type: "paint", buffered: true } as unknown as { type: "mark"; buffered: boolean });
      }),
  );
  return { page, requests, errors, ...times };
}

/**
 * Sets one filter control as a person would (a value or a check, then its input or change event) and returns the ms
 * until its result is drawn.
 */
export async function timedFilter(page: Page, id: string, value: string | boolean): Promise<number> {
  return page.evaluate(
    async (id, value) => {
      const control = document.getElementById(id)!;
      const started = performance.now();
      if (typeof value === "boolean") control.checked = value;
      else control.value = value;
      control.dispatchEvent(new Event(id === "filter-search" ? "input" : "change", { bubbles: true }));
      document.body.getBoundingClientRect();
      await new Promise<void>((resolve) =>
        requestAnimationFrame(() => requestAnimationFrame(() => resolve())),
      );
      return performance.now() - started;
    },
    id,
    value,
  );
}
