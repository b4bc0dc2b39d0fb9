/**
 * Registry and advisory data sources against the in-process emulator: getTags pages 200 at a time over
 * one repo's tags with name filter and ordering; getAdvisories' list filters reach the service (the SDK
 * sends them in snake_case, which the emulator must honour like the real service).
 */
import * as pulumi from "@pulumi/pulumi";
import type { Emulator } from "../../emulator";
import * as platform from "../../provider";
import { getsSince, useProgramEmulator } from "./harness";

let emulator: Emulator;
useProgramEmulator((started) => (emulator = started));

const since = (mark: number, path: string) => getsSince(emulator, mark, path);

async function repoUid(name: string): Promise<string> {
  return (await platform.registry.getRepo({ name, organizationUid: emulator.orgUid })).uid;
}

describe("registry.getTags", () => {
  it("pages through more than 200 tags of one repo with ceil(n/200) list calls of 200", async () => {
    const n = 451;
    emulator.seed({
      repos: [
        {
          name: "nginx",
          tags: Array.from({ length: n }, (_, i) => ({
            name: `1.${String(i).padStart(3, "0")}`,
            digest: `sha256:${String(i).padStart(64, "0")}`,
          })),
        },
        { name: "redis", tags: [{ name: "latest", digest: `sha256:${"f".repeat(64)}` }] },
      ],
    });
    const repo = await repoUid("nginx");
    const mark = emulator.requestLog().length;
    const { tags } = await platform.registry.getTags({ repoUid: repo, orderBy: "name desc" });
    expect(tags).toHaveLength(n);
    expect(new Set(tags.map((t) => t.uid)).size).toBe(n);
    expect(tags.every((t) => t.uid.startsWith(`${repo}/`))).toBe(true);
    expect(tags[0]!.name).toBe("1.450");
    expect(tags[n - 1]!.name).toBe("1.000");
    const calls = since(mark, "/registry/v2beta1/tags");
    expect(calls).toHaveLength(Math.ceil(n / 200));
    expect(calls.every((c) => String(c.query.page_size ?? c.query.pageSize) === "200")).toBe(true);
    expect(calls.every((c) => c.query["uidp.children_of"] === repo)).toBe(true);
  });

  it("filters by exact name within the repo", async () => {
    emulator.seed({
      repos: [
        {
          name: "nginx",
          tags: [
            { name: "latest", digest: `sha256:${"a".repeat(64)}` },
            { name: "latest-dev", digest: `sha256:${"b".repeat(64)}` },
          ],
        },
        { name: "redis", tags: [{ name: "latest", digest: `sha256:${"c".repeat(64)}` }] },
      ],
    });
    const { tags } = await platform.registry.getTags({ repoUid: await repoUid("nginx"), name: "latest" });
    expect(tags.map((t) => [t.name, t.digest])).toEqual([["latest", `sha256:${"a".repeat(64)}`]]);
  });

  it("rejects a malformed repo uid before any API call, naming repoUid", async () => {
    const mark = emulator.requestLog().length;
    await expect(platform.registry.getTags({ repoUid: "nginx" })).rejects.toThrow(
      /platform:registry:getTags: repoUid/,
    );
    expect(emulator.requestLog().length).toBe(mark);
  });

  it("the Output form resolves Inputs first", async () => {
    emulator.seed({
      repos: [{ name: "nginx", tags: [{ name: "latest", digest: `sha256:${"a".repeat(64)}` }] }],
    });
    const repo = pulumi.output(repoUid("nginx"));
    const result = platform.registry.getTagsOutput({ repoUid: repo });
    const names = await new Promise<string[]>((resolve) =>
      result.apply((r) => resolve(r.tags.map((t) => t.name))),
    );
    expect(names).toEqual(["latest"]);
  });
});

describe("vulnerabilities.getAdvisories filters", () => {
  beforeEach(() => {
    emulator.seed({
      advisories: [
        {
          advisoryId: "CGA-0001",
          artifactName: "nginx",
          componentName: "openssl",
          aliases: ["CVE-2026-0001"],
        },
        {
          advisoryId: "CGA-0002",
          artifactName: "redis",
          componentName: "jemalloc",
          aliases: ["CVE-2026-0002"],
        },
        { advisoryId: "CGA-0003", artifactName: "python", componentName: "openssl", aliases: [] },
      ],
    });
  });

  const ids = (advisories: { advisoryId?: string | undefined }[]) =>
    advisories.map((a) => a.advisoryId ?? "").sort();

  it("artifactNames selects only those artifacts", async () => {
    const all = await platform.vulnerabilities.getAdvisories({});
    expect(ids(all.advisories)).toEqual(["CGA-0001", "CGA-0002", "CGA-0003"]);
    const { advisories } = await platform.vulnerabilities.getAdvisories({
      artifactNames: ["nginx", "python"],
    });
    expect(ids(advisories)).toEqual(["CGA-0001", "CGA-0003"]);
  });

  it("componentNames and advisoryIds combine", async () => {
    const { advisories } = await platform.vulnerabilities.getAdvisories({
      componentNames: ["openssl"],
      advisoryIds: ["CGA-0003", "CGA-0002"],
    });
    expect(ids(advisories)).toEqual(["CGA-0003"]);
  });
});
