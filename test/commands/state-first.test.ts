/**
 * State-first adoption (commands/import/adoption.ts, commands/import/load.ts) in process: the state `--state-out` writes for every
 * kind, read through the provider's operations, with no secret and the fingerprints of the whole group; the merge
 * into a stack's deployment (URNs, parents, provider, nothing else touched; refusal of what is already there), over
 * hostile names; the comparison of fingerprints; and `load` against a stand-in `pulumi`, each refusal before any
 * `stack import`. The engine's own reading of the result is test/e2e/state-first*.e2e.test.ts.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import fc from "fast-check";
import { startEmulator, type Emulator } from "../../emulator";
import { everyKind } from "./fixtures";
import { main, type Io } from "../../commands/import/cli";
import {
  ADOPTION_FORMAT,
  fingerprint,
  importRead,
  type AdoptedResource,
  type AdoptionFile,
} from "../../commands/import/adoption";
import {
  changedSince,
  defaultProviderName,
  mergeAdoption,
  projectRuntime,
  registrationOf,
  sdkRequest,
  type Exported,
  type StateResource,
} from "../../commands/import/load";
import type { RunPulumi } from "../../commands/stacks";
import { SECRET_SIG, SIG_KEY } from "../../commands/states";
import { RESOURCES } from "../../provider/catalogue";

const SEEDS = { seed: 35, numRuns: 150 };

function io(env: Record<string, string | undefined>, extra: Partial<Io> = {}) {
  const out = { stdout: "", stderr: [] as string[] };
  return {
    out,
    io: {
      stdout: (t: string) => void (out.stdout += t),
      stderr: (l: string) => void out.stderr.push(l),
      env,
      ...extra,
    } satisfies Io,
  };
}

describe("--state-out and load against the emulator", () => {
  let emulator: Emulator;
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    emulator = await startEmulator();
    await everyKind(emulator.client, emulator.orgUid);
    env = { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: emulator.token };
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "state-first-"));
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: 'adopt-me' # the project\nruntime: yaml\n");
  });
  afterAll(async () => {
    await emulator.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function writeAdoption(): Promise<AdoptionFile> {
    const { io: cli, out } = io(env);
    const code = await main(
      [
        emulator.orgUid,
        "--out",
        path.join(dir, "import.json"),
        "--state-out",
        path.join(dir, "adopted.json"),
      ],
      cli,
    );
    expect({ code, stderr: out.stderr.filter((l) => l.startsWith("platform-import")) }).toEqual({
      code: 0,
      stderr: [],
    });
    return JSON.parse(fs.readFileSync(path.join(dir, "adopted.json"), "utf8")) as AdoptionFile;
  }

  it("writes, for each resource of the document, what the provider's read gives an import, and no secret", async () => {
    const adoption = await writeAdoption();
    const document = JSON.parse(fs.readFileSync(path.join(dir, "import.json"), "utf8")) as {
      resources: { type: string; name: string; id: string; parent?: string }[];
    };
    expect(adoption.resources.map(({ type, name, id, parent }) => ({ type, name, id, parent }))).toEqual(
      document.resources.map(({ type, name, id, parent }) => ({ type, name, id, parent })),
    );
    for (const resource of adoption.resources) {
      const served = RESOURCES.find((r) => r.declaration.token === resource.type)!;
      const { outputs, inputs } = importRead(served.declaration, await readAs(served, resource.id));
      expect({ id: resource.id, outputs: resource.outputs, inputs: resource.inputs }).toEqual({
        id: resource.id,
        outputs,
        inputs,
      });
    }
    const text = fs.readFileSync(path.join(dir, "adopted.json"), "utf8");
    expect(text).not.toContain(SECRET_SIG);
    expect(text).not.toContain("hand-made-secret");
    expect(text).not.toContain(emulator.token);
    expect(adoption.platformAdoption.format).toBe(ADOPTION_FORMAT);
    expect(adoption.platformAdoption.scope).toBe(emulator.orgUid);
    // Every object under the organization and the organization itself (never the built-in roles).
    const keys = Object.keys(adoption.platformAdoption.fingerprints);
    expect(keys).toContain(`group ${emulator.orgUid}`);
    expect(keys).toHaveLength(adoption.resources.length);
    expect(keys.every((k) => k.split(" ")[1]!.startsWith(emulator.orgUid))).toBe(true);
  });

  it("report --out --state-out: the state of exactly the unmanaged objects", async () => {
    const stateFile = path.join(dir, "stack.json");
    fs.writeFileSync(stateFile, JSON.stringify({ version: 3, deployment: {} }));
    const { io: cli, out } = io(env);
    const code = await main(
      [
        "report",
        emulator.orgUid,
        "--state",
        stateFile,
        "--out",
        path.join(dir, "unmanaged.json"),
        "--state-out",
        path.join(dir, "unmanaged-state.json"),
      ],
      cli,
    );
    expect(code).toBe(2); // unmanaged objects found
    const document = JSON.parse(fs.readFileSync(path.join(dir, "unmanaged.json"), "utf8")) as {
      resources: { id: string; type: string }[];
    };
    const adoption = JSON.parse(
      fs.readFileSync(path.join(dir, "unmanaged-state.json"), "utf8"),
    ) as AdoptionFile;
    expect(adoption.resources.map((r) => `${r.type} ${r.id}`)).toEqual(
      document.resources.map((r) => `${r.type} ${r.id}`),
    );
    expect(document.resources.length).toBeGreaterThan(0);
    expect(adoption.platformAdoption.scope).toBe(emulator.orgUid);
    expect(out.stderr.join("\n")).toMatch(/wrote .*unmanaged-state\.json \(the state of \d+ resources/);
  });

  async function readAs(served: (typeof RESOURCES)[number], id: string) {
    // The same operations, with the same credentials, as the command configured them.
    const { configureFromEnv } = await import("../../commands/import/adoption");
    await configureFromEnv(env);
    return served.operations.read(id);
  }

  /** A stand-in `pulumi`: answers from `state`, records `stack import`. */
  function fakePulumi(
    state: Exported,
    options: { version?: string; plugins?: unknown; config?: unknown } = {},
  ) {
    const imported: string[] = [];
    const calls: string[] = [];
    const run: RunPulumi = async (args, stdin) => {
      calls.push(args.join(" "));
      const ok = (stdout: string) => ({ code: 0, stdout, stderr: "" });
      switch (args.slice(0, 2).join(" ")) {
        case "version":
          return ok(`${options.version ?? "v3.248.0"}\n`);
        case "stack export":
          return ok(JSON.stringify(state));
        case "plugin ls":
          return ok(
            JSON.stringify(options.plugins ?? [{ name: "platform", kind: "resource", version: "0.2.0" }]),
          );
        case "stack --show-name":
          return ok("organization/adopt-me/dev\n");
        case "config --json":
          return ok(JSON.stringify(options.config ?? {}));
        case "stack import":
          imported.push(stdin ?? "");
          return ok("");
      }
      return { code: 1, stdout: "", stderr: `no ${args.join(" ")}` };
    };
    return { run, imported, calls };
  }

  const emptyStack: Exported = {
    version: 3,
    deployment: { manifest: { version: "v3.248.0" }, secrets_providers: { type: "passphrase" } },
  };

  it("load: merges into the stack in one stack import; secret config goes as plaintext on stdin only", async () => {
    await writeAdoption();
    const pulumi = fakePulumi(emptyStack, {
      config: {
        "platform:apiUrl": { value: emulator.url, secret: false },
        "platform:token": { value: "config-token-123", secret: true },
        "aws:region": { value: "x", secret: false },
      },
    });
    const { io: cli, out } = io(env, { cwd: dir, engine: () => pulumi.run });
    expect(await main(["load", path.join(dir, "adopted.json")], cli)).toBe(0);
    expect(out.stderr.join("\n")).toMatch(/loaded 9 resources into the stack \(11 in all, with the default/);
    expect(pulumi.imported).toHaveLength(1);
    const merged = JSON.parse(pulumi.imported[0]!) as Exported;
    const resources = merged.deployment.resources!;
    expect(resources[0]).toMatchObject({
      type: "pulumi:pulumi:Stack",
      urn: "urn:pulumi:dev::adopt-me::pulumi:pulumi:Stack::adopt-me-dev",
    });
    expect(resources[1]).toMatchObject({
      type: "pulumi:providers:platform",
      urn: "urn:pulumi:dev::adopt-me::pulumi:providers:platform::default",
      inputs: { apiUrl: emulator.url, token: { [SIG_KEY]: SECRET_SIG, plaintext: '"config-token-123"' } },
    });
    expect(resources[1]!.inputs).toEqual(resources[1]!.outputs);
    for (const r of resources.slice(2)) {
      expect(r).toMatchObject({
        custom: true,
        protect: true,
        provider: `${resources[1]!.urn}::${resources[1]!.id}`,
      });
    }
    expect(merged.deployment["secrets_providers"]).toEqual({ type: "passphrase" });
  });

  it("load refuses before any stack import: an object changed since the read", async () => {
    const adoption = await writeAdoption();
    const group = adoption.resources.find((r) => r.type === "platform:iam:Group" && r.parent !== undefined)!;
    await emulator.client.groups.update(group.id, { description: "changed meanwhile" });
    const pulumi = fakePulumi(emptyStack);
    const { io: cli, out } = io(env, { cwd: dir, engine: () => pulumi.run });
    expect(await main(["load", path.join(dir, "adopted.json")], cli)).toBe(1);
    expect(out.stderr.join("\n")).toContain(`group ${group.id} changed`);
    expect(pulumi.imported).toEqual([]);
  });

  it.each([
    [{ version: "v3.200.0" }, emptyStack, /last written by engine v3\.248\.0, newer than this pulumi/],
    [{ plugins: [] }, emptyStack, /no platform plugin is installed/],
    [
      { plugins: [{ name: "platform", kind: "resource", version: "0.1.9" }] },
      emptyStack,
      /installed is 0\.1\.9, older/,
    ],
    [{}, { ...emptyStack, version: 5 }, /deployment version 5/],
  ])("load refuses before any stack import: %j", async (options, state, message) => {
    await writeAdoption();
    const pulumi = fakePulumi(state, options);
    const { io: cli, out } = io(env, { cwd: dir, engine: () => pulumi.run });
    expect(await main(["load", path.join(dir, "adopted.json")], cli)).toBe(1);
    expect(out.stderr.join("\n")).toMatch(message);
    expect(pulumi.imported).toEqual([]);
    expect(pulumi.calls.some((c) => c.startsWith("config"))).toBe(false);
  });

  it("refuses --state-out without --out, and load without a file or of a file that is not one", async () => {
    for (const argv of [
      [emulator.orgUid, "--state-out", "x.json"],
      ["load"],
      ["load", path.join(dir, "import.json")],
    ]) {
      const { io: cli, out } = io(env, { cwd: dir, engine: () => fakePulumi(emptyStack).run });
      expect(await main(argv, cli)).toBe(1);
      expect(out.stderr).toHaveLength(1);
    }
  });
});

describe("importRead", () => {
  it("drops empty inputs, as the plugin does for an import, and marks declared secrets", () => {
    const result = importRead(
      { secrets: ["code"] },
      {
        props: { uid: "u", code: "c", email: "" },
        inputs: { email: "", groupUid: "g", code: "c", tags: [] },
      },
    );
    expect(result).toEqual({
      outputs: { uid: "u", code: { [SIG_KEY]: SECRET_SIG, value: "c" }, email: "" },
      inputs: { groupUid: "g", code: { [SIG_KEY]: SECRET_SIG, value: "c" } },
    });
  });
});

/** Names a program and a URN may carry, hostile ones included. */
const nameArb = fc.oneof(
  fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/),
  fc.constantFrom("__proto__", "constructor", "toString", "hasOwnProperty"),
);

const adoptionArb = fc
  .uniqueArray(nameArb, { minLength: 1, maxLength: 12 })
  .chain((names) =>
    fc.tuple(
      fc.constant(names),
      fc.array(fc.nat(), { minLength: names.length, maxLength: names.length }),
      fc.array(fc.constantFrom("platform:iam:Group", "platform:iam:Identity", "platform:iam:Role"), {
        minLength: names.length,
        maxLength: names.length,
      }),
    ),
  )
  .map(([names, parents, types]): AdoptionFile => ({
    platformAdoption: {
      format: ADOPTION_FORMAT,
      pluginVersion: "0.2.0",
      source: "api x",
      scope: "x",
      fingerprints: {},
    },
    resources: names.map((name, i) => ({
      type: types[i]!,
      name,
      id: `org/${i.toString(16).padStart(16, "0")}`,
      // A parent among the resources before it, or none.
      ...(i > 0 && parents[i]! % 3 !== 0 ? { parent: names[parents[i]! % i]! } : {}),
      inputs: { name },
      outputs: { name, uid: `org/${i}` },
    })),
  }));

const where = {
  stack: "dev",
  project: "p",
  providerConfig: () => ({}),
  now: "2026-01-01T00:00:00.000Z",
  providerId: () => "provider-id",
};

describe("mergeAdoption", () => {
  it("keeps the stack's resources first and as they were; adds each with its URN, parent and provider", () => {
    const other: StateResource = {
      urn: "urn:pulumi:dev::p::aws:s3:Bucket::b",
      custom: true,
      type: "aws:s3:Bucket",
      id: "b",
      outputs: { secret: { [SIG_KEY]: SECRET_SIG, ciphertext: "v1:abc" } },
    };
    fc.assert(
      fc.property(adoptionArb, fc.boolean(), (adoption, withOther) => {
        const exported: Exported = { version: 3, deployment: { resources: withOther ? [other] : [] } };
        const { deployment, added, providerAdded } = mergeAdoption(exported, adoption, where);
        const resources = deployment.deployment.resources!;
        expect(added).toBe(adoption.resources.length);
        expect(providerAdded).toBe(true);
        expect(resources.slice(0, 2).map((r) => r.type)).toEqual([
          "pulumi:pulumi:Stack",
          "pulumi:providers:platform",
        ]);
        if (withOther) expect(resources[2]).toBe(other);
        const adopted = resources.slice(withOther ? 3 : 2);
        const urns = new Map<string, string>();
        adoption.resources.forEach((r, i) => {
          const parentUrn = r.parent === undefined ? undefined : urns.get(r.parent)!;
          const chain = parentUrn === undefined ? "" : `${parentUrn.split("::")[2]}$`;
          const urn = `urn:pulumi:dev::p::${chain}${r.type}::${r.name}`;
          urns.set(r.name, urn);
          expect(adopted[i]).toEqual({
            urn,
            custom: true,
            id: r.id,
            type: r.type,
            inputs: r.inputs,
            outputs: r.outputs,
            parent: parentUrn ?? "urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev",
            protect: true,
            provider: "urn:pulumi:dev::p::pulumi:providers:platform::default::provider-id",
            // Each name is its own: no input refers to another resource.
            propertyDependencies: { name: [] },
            created: where.now,
            modified: where.now,
          });
        });
        // Nothing else in the deployment changes.
        expect({ ...deployment, deployment: { ...deployment.deployment, resources: [] } }).toEqual({
          ...exported,
          deployment: { ...exported.deployment, resources: [] },
        });
      }),
      SEEDS,
    );
  });

  it("refuses a resource already in the stack, by URN or as the same object under another name", () => {
    fc.assert(
      fc.property(adoptionArb, fc.nat(), fc.boolean(), (adoption, pick, sameUrn) => {
        const first = mergeAdoption({ version: 3, deployment: {} }, adoption, where).deployment;
        const adopted = first.deployment.resources!.slice(2);
        const taken = adopted[pick % adopted.length]!;
        const existing = sameUrn ? taken : { ...taken, urn: `${taken.urn}-renamed` };
        const exported: Exported = { version: 3, deployment: { resources: [existing] } };
        expect(() => mergeAdoption(exported, adoption, where)).toThrow(
          /already in the stack, nothing loaded/,
        );
      }),
      SEEDS,
    );
  });

  it("reuses the stack's default provider and stack resource", () => {
    const adoption = fc.sample(adoptionArb, { seed: 1, numRuns: 1 })[0]!;
    const stack: StateResource = {
      urn: "urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev",
      custom: false,
      type: "pulumi:pulumi:Stack",
    };
    const provider: StateResource = {
      urn: "urn:pulumi:dev::p::pulumi:providers:platform::default",
      custom: true,
      type: "pulumi:providers:platform",
      id: "kept",
    };
    const { deployment, providerAdded } = mergeAdoption(
      { version: 3, deployment: { resources: [stack, provider] } },
      adoption,
      {
        ...where,
        providerConfig: () => {
          throw new Error("the config is not read when the stack has a provider");
        },
      },
    );
    expect(providerAdded).toBe(false);
    const resources = deployment.deployment.resources!;
    expect(resources.slice(0, 2)).toEqual([stack, provider]);
    expect(resources.slice(2).every((r) => r.provider === `${provider.urn}::kept`)).toBe(true);
  });
});

describe("withRegisteredDependencies", () => {
  /**
   * Resources whose inputs hold values that are, or are not, another's id or name (some shared by two, some a
   * resource's own), with parents before them: what `pulumi import` prints as references decides the dependencies.
   */
  const referringArb = fc
    .integer({ min: 1, max: 10 })
    .chain((n) =>
      fc.tuple(
        fc.constant(n),
        fc.array(fc.nat(), { minLength: n, maxLength: n }),
        fc.array(fc.array(fc.nat({ max: 3 * n }), { maxLength: 3 }), { minLength: n, maxLength: n }),
        fc.array(fc.nat({ max: n + 2 }), { minLength: n, maxLength: n }),
      ),
    )
    .map(([n, parents, picks, names]) => {
      const ids = Array.from({ length: n }, (_, i) => `org/${i}`);
      // Name `names[i] % (n + 3)`: two resources may share one (neither is then a reference).
      const nameOf = (i: number) => `name-${names[i]! % (n + 3)}`;
      // A pick is an id, a name, or a value that is neither.
      const value = (pick: number) =>
        pick < n ? ids[pick]! : pick < 2 * n ? nameOf(pick - n) : `other-${pick}`;
      const resources: AdoptedResource[] = ids.map((id, i) => ({
        type: "platform:iam:Group",
        name: `r${i}`,
        id,
        ...(i > 0 && parents[i]! % 2 === 0 ? { parent: `r${parents[i]! % i}` } : {}),
        inputs: {
          name: nameOf(i),
          ...(picks[i]!.length > 0 ? { refs: picks[i]!.map(value) } : {}),
          ...(picks[i]!.length > 0 ? { nested: { one: value(picks[i]![0]!) } } : {}),
        },
        outputs: { name: nameOf(i), uid: id },
      }));
      return resources;
    });

  it("records as dependencies exactly the references pulumi import prints, each after what it needs", () => {
    fc.assert(
      fc.property(referringArb, (resources) => {
        const adoption: AdoptionFile = {
          platformAdoption: {
            format: ADOPTION_FORMAT,
            pluginVersion: "0.2.0",
            source: "api x",
            scope: "x",
            fingerprints: {},
          },
          resources,
        };
        const merged = mergeAdoption({ version: 3, deployment: {} }, adoption, where).deployment;
        const adopted = merged.deployment.resources!.slice(2);
        const byId = new Map(adopted.map((r) => [r.id!, r]));
        // The engine's rule (pkg/importer), restated: a value refers to the one other resource with it as id or name.
        const holders = (value: string, self: AdoptedResource) =>
          resources.filter((r) => r !== self && (r.id === value || r.outputs["name"] === value));
        const guessed = resources.map((r) => {
          const leaves = (v: unknown): string[] =>
            typeof v === "string"
              ? [v]
              : typeof v === "object" && v !== null
                ? Object.values(v).flatMap(leaves)
                : [];
          return Object.fromEntries(
            Object.entries(r.inputs).map(([key, v]) => {
              const targets = leaves(v)
                .map((leaf) => holders(leaf, r))
                .filter((h) => h.length === 1)
                .map((h) => h[0]!.id);
              return [key, [...new Set(targets)]];
            }),
          );
        });
        // A cycle (references and parents) makes the engine print no reference at all.
        const edges = new Map(
          resources.map((r, i) => [
            r.id,
            [
              ...Object.values(guessed[i]!).flat(),
              ...(r.parent ? [resources.find((p) => p.name === r.parent)!.id] : []),
            ],
          ]),
        );
        const reaches = (from: string, to: string, seen = new Set<string>()): boolean =>
          (edges.get(from) ?? []).some(
            (n) => n === to || (!seen.has(n) && (seen.add(n), reaches(n, to, seen))),
          );
        const cyclic = resources.some((r) => reaches(r.id, r.id));
        resources.forEach((r, i) => {
          const state = byId.get(r.id)!;
          const urnsOf = (ids: string[]) => ids.map((id) => byId.get(id)!.urn);
          const byKey = Object.fromEntries(
            Object.entries(guessed[i]!).map(([k, ids]) => [k, cyclic ? [] : urnsOf(ids)]),
          );
          expect(state.propertyDependencies).toEqual(byKey);
          const all = [...new Set(Object.values(byKey).flat())];
          if (all.length === 0) expect(state).not.toHaveProperty("dependencies");
          else expect([...(state.dependencies as string[])].sort()).toEqual(all.sort());
          // The engine refuses a state where a resource comes before its parent or a dependency.
          const at = adopted.indexOf(state);
          for (const before of [...all, state.parent as string])
            expect(adopted.findIndex((a) => a.urn === before)).toBeLessThan(at);
        });
      }),
      SEEDS,
    );
  });
});

describe("fingerprints", () => {
  const mapArb = fc.dictionary(fc.oneof(nameArb, fc.string()), fc.string(), { maxKeys: 8 });
  it("changedSince is empty exactly when the maps are equal, and names each difference", () => {
    fc.assert(
      fc.property(mapArb, mapArb, (a, b) => {
        const changed = changedSince(a, b);
        const equal = JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());
        expect(changed.length === 0).toBe(equal);
        for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
          const differs = Object.hasOwn(a, key) !== Object.hasOwn(b, key) || a[key] !== b[key];
          expect(changed.some((c) => c.startsWith(`${key} `))).toBe(differs);
        }
      }),
      SEEDS,
    );
  });

  it("a fingerprint ignores member order and lastSeenTime, and sees every other change", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 6 }),
        fc.string(),
        fc.jsonValue(),
        (object, key, value) => {
          const reversed = Object.fromEntries(Object.entries(object).reverse());
          expect(fingerprint(reversed)).toBe(fingerprint(object));
          expect(fingerprint({ ...object, lastSeenTime: "2026-01-01T00:00:00Z" })).toBe(
            fingerprint({ ...object, lastSeenTime: "x" }),
          );
          if (
            key !== "lastSeenTime" &&
            JSON.stringify(object[key]) !== JSON.stringify(value) &&
            value !== undefined
          )
            expect(fingerprint({ ...object, [key]: value })).not.toBe(fingerprint(object));
        },
      ),
      SEEDS,
    );
  });
});

describe("the default provider a program registers with, per runtime", () => {
  const schema = JSON.parse(fs.readFileSync(path.join(__dirname, "../../schema.json"), "utf8")) as {
    version: string;
    pluginDownloadURL: string;
  };

  it("names it as the engine's ProviderRequest.DefaultName does (its own test cases)", () => {
    // pkg/resource/deploy/providers/provider_test.go of pulumi/pulumi.
    expect(defaultProviderName({})).toBe("default");
    expect(defaultProviderName({ version: "0.18.1" })).toBe("default_0_18_1");
    expect(defaultProviderName({ version: "0.17.7-dev.1555435978+gb7030aa4.dirty" })).toBe(
      "default_0_17_7_dev_1555435978_gb7030aa4_dirty",
    );
    expect(defaultProviderName({ version: "0.18.1", pluginDownloadURL: "pulumi.com/pkg" })).toBe(
      "default_0_18_1_pulumi.com/pkg",
    );
    expect(defaultProviderName({ pluginDownloadURL: "company.com/" })).toBe("default_company.com");
    // tokens.IntoQName: empty parts dropped, each byte outside [A-Za-z0-9_.-] made `_`.
    expect(defaultProviderName({ version: "1.2.3", pluginDownloadURL: "github://api.github.com/o/r" })).toBe(
      "default_1_2_3_github_/api.github.com/o/r",
    );
    expect(defaultProviderName({ pluginDownloadURL: "https://h/é x" })).toBe("default_https_/h/___x");
  });

  it("is `default` for YAML, and for a generated SDK the name of schema.json's version and download URL", () => {
    expect(registrationOf("yaml")).toEqual({ provider: { name: "default", inputs: {} }, secretOutputs: {} });
    const [major, minor, patch] = schema.version.split(/[.+-]/);
    for (const runtime of ["nodejs", "python", "go", "java"]) {
      const { provider } = registrationOf(runtime);
      expect(provider.name.startsWith(`default_${major}_${minor}_${patch}_`)).toBe(true);
      expect(provider.name).toBe(defaultProviderName(schema));
      // What the engine adds to a default provider's inputs (providers.SetProviderVersion, SetProviderURL).
      expect(provider.inputs).toEqual({
        version: schema.version,
        __internal: { pluginDownloadURL: schema.pluginDownloadURL },
      });
    }
    expect(() => registrationOf("dotnet")).toThrow(/runtime "dotnet"/);
  });

  it("asks for the additional secret outputs the generated SDKs register", () => {
    const { secretOutputs } = sdkRequest();
    expect(Object.keys(secretOutputs).length).toBeGreaterThan(0);
    expect(registrationOf("python").secretOutputs).toEqual(secretOutputs);
    for (const [token, keys] of Object.entries(secretOutputs)) {
      const [, module, type] = token.split(":");
      const file = `${type!.charAt(0).toLowerCase()}${type!.slice(1)}.ts`;
      const sdk = fs.readFileSync(path.join(__dirname, "../../native-sdks/nodejs", module!, file), "utf8");
      expect(sdk).toContain(`additionalSecretOutputs: ${JSON.stringify(keys).replaceAll(",", ", ")}`);
    }
  });

  it("reads the runtime from Pulumi.yaml, inline or as runtime.name", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "platform-runtime-"));
    try {
      const runtimeOf = (text: string) => {
        fs.writeFileSync(path.join(dir, "Pulumi.yaml"), text);
        return projectRuntime(dir);
      };
      expect(runtimeOf("name: p\nruntime: yaml\n")).toBe("yaml");
      expect(runtimeOf("name: p\nruntime: 'go' # the language\n")).toBe("go");
      expect(runtimeOf("name: p\nruntime:\n  name: nodejs\n  options:\n    typescript: true\n")).toBe(
        "nodejs",
      );
      expect(runtimeOf("name: p\nruntime:\n  options:\n    toolchain: pip\n  name: python\n")).toBe("python");
      expect(() => runtimeOf("name: p\n")).toThrow(/names no runtime/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("records the SDK's provider, its inputs and the secret outputs when merging", () => {
    const adoption: AdoptionFile = {
      platformAdoption: {
        format: ADOPTION_FORMAT,
        pluginVersion: "0.2.0",
        source: "api x",
        scope: "x",
        fingerprints: {},
      },
      resources: [
        {
          type: "platform:iam:GroupInvite",
          name: "invite",
          id: "org/1",
          inputs: { roleUid: "r" },
          outputs: { uid: "org/1" },
        },
        {
          type: "platform:iam:Group",
          name: "team",
          id: "org/2",
          inputs: { name: "team" },
          outputs: { uid: "org/2" },
        },
      ],
    } as unknown as AdoptionFile;
    const registration = registrationOf("nodejs");
    const { deployment } = mergeAdoption({ version: 3, deployment: {} }, adoption, {
      ...where,
      providerConfig: () => ({ apiUrl: "https://api.example.com" }),
      registration,
    });
    const [, provider, invite, team] = deployment.deployment.resources!;
    const urn = `urn:pulumi:dev::p::pulumi:providers:platform::${registration.provider.name}`;
    expect(provider).toMatchObject({
      urn,
      inputs: { apiUrl: "https://api.example.com", ...registration.provider.inputs },
      outputs: { apiUrl: "https://api.example.com", ...registration.provider.inputs },
    });
    expect(invite!.provider).toBe(`${urn}::provider-id`);
    expect(invite!["additionalSecretOutputs"]).toEqual(
      registration.secretOutputs["platform:iam:GroupInvite"],
    );
    expect(team!["additionalSecretOutputs"]).toBeUndefined();
  });
});
