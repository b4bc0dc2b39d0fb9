/**
 * The access review's HTML page (platform-access review --html) in a real headless browser: Debian's chromium
 * driven by puppeteer-core (scripts/test.sh installs chromium when missing). The page is made from an
 * organization built through the API with direct, inherited and custom-role grants; the assertions are on the
 * rendered page (which rows are visible after each filter, where groups sit), not on the HTML text. Screenshots go
 * to test-output/ (git-ignored): access-review.png (everything), access-review-top.png (the first screen, as
 * docs/access-review.png shows it) and access-review-filtered.png.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { startEmulator, type Emulator } from "../../emulator";
import { main } from "../../commands/access/cli";
import type { Review } from "../../commands/access/review";
import { makeOrg, type MadeOrg } from "../commands/access-fixtures";
import { repoRoot } from "./harness";

jest.setTimeout(120_000);

/** What the tests read of a rendered element (the repo's type check has no DOM library). */
interface Laid {
  offsetParent: unknown;
  innerText: string;
}

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const outDir = path.join(repoRoot, "test-output");

describe("the access review page in a headless browser", () => {
  let emulator: Emulator;
  let browser: Browser;
  let page: Page;
  let made: MadeOrg;
  let review: Review;
  let tmp: string;

  const visibleRows = (): Promise<{ group: string; identity: string }[]> =>
    page.$$eval("tr.grant-row", (rows) =>
      rows
        .filter((r) => (r as unknown as Laid).offsetParent !== null)
        .map((r) => ({
          group: r.closest("section")!.getAttribute("data-group")!,
          identity: r.getAttribute("data-identity")!,
        })),
    );
  const pairs = (grants: Review["grants"]) =>
    [...new Set(grants.map((g) => `${g.group} ${g.identity}`))].sort();
  const shown = async () => (await visibleRows()).map((r) => `${r.group} ${r.identity}`).sort();

  beforeAll(async () => {
    if (!fs.existsSync(CHROMIUM))
      throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (scripts/test.sh does it)`);
    emulator = await startEmulator();
    made = await makeOrg(emulator, {
      groups: [-1, 0, -1],
      workloads: [0, 2],
      people: 1,
      roles: [
        { group: -1, capabilities: ["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST", "CAP_IAM_ROLE_BINDINGS_CREATE"] },
      ],
      bindings: [
        { identity: 0, role: 0, group: 0 },
        { identity: 1, role: "viewer", group: 2 },
        { identity: 2, role: "viewer", group: -1 },
      ],
    });
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "access-html-"));
    const env = { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: emulator.token };
    const out: string[] = [];
    const io = { env, stdout: (t: string) => void out.push(t), stderr: () => undefined };
    expect(await main(["review", made.org, "--json"], io)).toBe(0);
    review = JSON.parse(out.join("")) as Review;
    expect(await main(["review", made.org, "--html", path.join(tmp, "review.html")], io)).toBe(0);
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
    });
    page = await browser.newPage();
    // Self-contained: any request other than the page itself fails the test.
    const requests: string[] = [];
    page.on("request", (r) => void requests.push(r.url()));
    await page.setViewport({ width: 1400, height: 900 });
    await page.goto(`file://${path.join(tmp, "review.html")}`, { waitUntil: "load" });
    expect(requests).toEqual([`file://${path.join(tmp, "review.html")}`]);
    fs.mkdirSync(outDir, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await emulator?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("shows the group tree, each group indented under its parent, with a legend", async () => {
    const groups = await page.$$eval("section.group", (sections) =>
      sections.map((s) => ({
        uid: s.getAttribute("data-group")!,
        name: s.querySelector("h2")!.childNodes[0]!.textContent!.trim(),
        left: s.getBoundingClientRect().left,
        visible: (s as unknown as Laid).offsetParent !== null,
      })),
    );
    expect(groups.map((g) => g.uid)).toEqual(review.groups.map((g) => g.uid));
    expect(groups.every((g) => g.visible)).toBe(true);
    const left = new Map(groups.map((g) => [g.uid, g.left]));
    const [org, eng, sandbox, ops] = made.groups as [string, string, string, string];
    expect(left.get(eng)!).toBeGreaterThan(left.get(org)!);
    expect(left.get(sandbox)!).toBeGreaterThan(left.get(eng)!);
    expect(left.get(ops)).toBe(left.get(eng));
    const legend = await page.$eval(".legend", (l) => (l as unknown as Laid).innerText);
    expect(legend).toMatch(/Inherited/);
    expect(legend).toMatch(/every group below it/);
    expect(await shown()).toEqual(pairs(review.grants));
    await page.screenshot({ path: path.join(outDir, "access-review.png"), fullPage: true });
    // The top of the page, as docs/access-review.md shows it.
    await page.screenshot({ path: path.join(outDir, "access-review-top.png") });
  });

  it("filters by identity", async () => {
    const ci = made.identities[0]!.uid;
    await page.select("#filter-identity", ci);
    expect(await shown()).toEqual(pairs(review.grants.filter((g) => g.identity === ci)));
    expect((await visibleRows()).map((r) => r.group).sort()).toEqual([made.groups[1], made.groups[2]].sort());
    expect(await page.$eval("#visible-count", (e) => e.textContent)).toBe("2 rows shown");
    await page.select("#filter-identity", "");
  });

  it("filters by capability, and by both", async () => {
    const capability = "CAP_IAM_ROLE_BINDINGS_CREATE";
    await page.select("#filter-capability", capability);
    const expected = pairs(review.grants.filter((g) => g.capability === capability));
    expect(await shown()).toEqual(expected);
    // The owner everywhere, ci on eng and sandbox; the capability is highlighted in each visible row.
    expect(expected.length).toBe(made.groups.length + 2);
    const highlighted = await page.$$eval("tr.grant-row .cap.match", (caps) =>
      caps.filter((c) => (c as unknown as Laid).offsetParent !== null).map((c) => c.textContent),
    );
    expect(highlighted).toEqual(expected.map(() => capability));
    await page.screenshot({ path: path.join(outDir, "access-review-filtered.png"), fullPage: true });
    await page.select("#filter-identity", made.identities[1]!.uid);
    expect(await shown()).toEqual([]);
    const empty = await page.$$eval(
      ".nomatch",
      (ps) => ps.filter((p) => (p as unknown as Laid).offsetParent !== null).length,
    );
    expect(empty).toBe(made.groups.length);
    await page.select("#filter-identity", "");
    await page.select("#filter-capability", "");
    await page.click("#filter-privileged");
    const privileged = new Set(
      review.grants.filter((g) => g.privileged).map((g) => `${g.group} ${g.identity}`),
    );
    expect(await shown()).toEqual([...privileged].sort());
  });
});
