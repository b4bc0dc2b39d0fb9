/**
 * platform.iam.GroupAccess under the real engine, in TypeScript (the dynamic provider, test/e2e/fixtures/group-access)
 * and in YAML (the native plugin, installed from its tarball), against an in-process emulator: a binding added by
 * hand to the governed folder shows in `pulumi refresh --preview-only` as drift on the resource; after a refresh,
 * `up` removes exactly it (one DELETE, counted in the emulator's request log) and nothing else; one more binding
 * declared creates one binding and deletes none; a change that removes the provider's own access, a RoleBinding in
 * the governed scope and an overlapping GroupAccess each fail the preview with one line; destroy removes the
 * bindings it declared.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { startEmulator, type Emulator } from "../../emulator";
import { BUILTIN_ROLES } from "../../emulator/access";
import { tearDown, PulumiStack, installLocalPackage, repoRoot } from "./harness";
import { frontStack, type FrontProgram } from "./fronts";
import { buildPluginTarball, installPlugin } from "./plugin-tarball";

jest.setTimeout(900_000);

interface Spec {
  groupAccess?: Record<string, unknown>[];
  roleBindings?: Record<string, unknown>[];
}

const role = (name: string) => BUILTIN_ROLES.find((r) => r.name === name)!.uid;
const VIEWER = role("viewer");
const EDITOR = role("editor");
const OWNER = role("owner");

/** How each language's program is given a spec. */
interface Front extends FrontProgram {
  language: string;
  apply(stack: PulumiStack, spec: Spec): Promise<void>;
  cleanup(): void;
}

const typescript = (): Front => {
  const dir = path.join(repoRoot, "test", "e2e", "fixtures", "group-access");
  return {
    language: "typescript",
    programDir: () => dir,
    prepare: async () => installLocalPackage(dir, { build: false }),
    apply: (stack, spec) => stack.setConfig("spec", JSON.stringify(spec)),
    cleanup: () => fs.rmSync(path.join(dir, "node_modules"), { recursive: true, force: true }),
  };
};

const yaml = (): Front => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-platform-group-access-yaml-"));
  // YAML is a superset of JSON: the program is written as JSON, one resource per declared object.
  const program = (spec: Spec) => ({
    name: "group-access-yaml",
    runtime: "yaml",
    resources: Object.fromEntries([
      ...(spec.groupAccess ?? []).map(({ name, ...properties }) => [
        name,
        { type: "platform:iam:GroupAccess", properties },
      ]),
      ...(spec.roleBindings ?? []).map(({ name, ...properties }) => [
        name,
        { type: "platform:iam:RoleBinding", properties },
      ]),
    ]),
  });
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), JSON.stringify(program({})));
  let tarball = "";
  return {
    language: "yaml",
    programDir: () => dir,
    prepare: async (stack) => {
      tarball ||= buildPluginTarball();
      await installPlugin(stack, tarball);
    },
    apply: async (_stack, spec) =>
      fs.writeFileSync(path.join(dir, "Pulumi.yaml"), JSON.stringify(program(spec))),
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
};

describe.each([
  // The engine cannot import dynamic resources (pulumi/pulumi#16175): import runs on the native plugin only.
  { language: "typescript", makeFront: typescript, imports: false },
  { language: "yaml", makeFront: yaml, imports: true },
])("GroupAccess end to end ($language)", ({ makeFront, imports }) => {
  let front: Front;
  let emulator: Emulator;
  let stack: PulumiStack;
  let folder: string;
  let ci: string;
  let bob: string;

  const writes = () => emulator.requestLog().filter((r) => r.method !== "GET" && !r.path.startsWith("/_"));
  const declared = (bindings: Record<string, unknown>[], extra: Spec = {}): Spec => ({
    groupAccess: [{ name: "folder-access", groupUid: folder, bindings }, ...(extra.groupAccess ?? [])],
    roleBindings: extra.roleBindings ?? [],
  });
  /** A failed preview's lines that name `text`: the engine's one line per failure. */
  const failedPreview = async (spec: Spec, text: string) => {
    await front.apply(stack, spec);
    emulator.clearRequestLog();
    const result = await stack.run(["preview"], { allowFailure: true });
    expect(writes()).toEqual([]);
    expect(result.exitCode).not.toBe(0);
    // The engine shows each failure beside its resource while it runs, then once under "Diagnostics:".
    const diagnostics = result.stdout.split("Diagnostics:")[1] ?? "";
    return diagnostics.split("\n").filter((line) => line.includes(text));
  };

  beforeAll(async () => {
    front = makeFront();
    emulator = await startEmulator();
    const c = emulator.client;
    folder = (await c.groups.create(emulator.orgUid, { name: "governed" })).uid;
    const identity = async (name: string) =>
      (
        await c.identities.create(emulator.orgUid, {
          name,
          claimMatch: { issuer: "https://issuer.example", subject: name },
        })
      ).uid;
    [ci, bob] = [await identity("ci"), await identity("bob")];
    stack = await frontStack(front, emulator);
  });

  afterAll(async () => {
    await tearDown(stack, emulator);
    front?.cleanup();
  });

  test("up creates the declared binding", async () => {
    await front.apply(stack, declared([{ identityUid: ci, roleUid: VIEWER }]));
    emulator.clearRequestLog();
    await stack.up();
    expect(writes().map((r) => r.method)).toEqual(["POST"]);
    await stack.preview();
  });

  test("a binding added by hand is drift on the GroupAccess, and up removes exactly it", async () => {
    const extra = await emulator.client.roleBindings.create(folder, { identityUid: bob, roleUid: EDITOR });
    const refresh = await stack.run(["refresh", "--preview-only"]);
    expect(refresh.stdout).toMatch(/GroupAccess folder-access update \[diff: ~bindings\]/);
    // With the details, the binding itself: its identity, role and group.
    const detailed = await stack.run(["refresh", "--preview-only", "--diff"]);
    const added = detailed.stdout.slice(
      detailed.stdout.indexOf(bob) - 200,
      detailed.stdout.indexOf(bob) + 200,
    );
    expect(added).toContain(EDITOR);
    expect(added).toContain(folder);
    await stack.refresh();
    // The preview says, binding by binding and with names, what the up then does.
    const preview = await stack.run(["preview"]);
    expect(preview.stdout).toContain(
      "will remove built-in role editor of workload identity bob on folder governed",
    );
    expect(preview.stdout).not.toContain("will add");
    emulator.clearRequestLog();
    await stack.up();
    expect(writes().map((r) => `${r.method} ${r.path}`)).toEqual([
      `DELETE /iam/v2beta1/roleBindings/${extra.uid}`,
    ]);
    const left = await emulator.client.roleBindings.list({ group: folder }).then((page) => page.items);
    expect(left.map((b) => [b.identity?.uid, b.role?.uid])).toEqual([[ci, VIEWER]]);
  });

  test("one more binding declared creates one binding and deletes none", async () => {
    await front.apply(
      stack,
      declared([
        { identityUid: ci, roleUid: VIEWER },
        { identityUid: bob, roleUid: VIEWER },
      ]),
    );
    const preview = await stack.run(["preview"]);
    expect(preview.stdout).toContain(
      "will add built-in role viewer of workload identity bob on folder governed",
    );
    expect(preview.stdout).not.toContain("will remove");
    emulator.clearRequestLog();
    await stack.up();
    expect(writes().map((r) => r.method)).toEqual(["POST"]);
    await stack.preview();
  });

  test("a change that removes the provider's own access fails at preview, one line naming the binding", async () => {
    const current = [
      { identityUid: ci, roleUid: VIEWER },
      { identityUid: bob, roleUid: VIEWER },
    ];
    const lines = await failedPreview(
      declared(current, { groupAccess: [{ name: "org-access", groupUid: emulator.orgUid, bindings: [] }] }),
      "would remove",
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("would remove built-in role owner of user demo-user on organization");
    expect(lines[0]).not.toContain(emulator.userUid);
  });

  test("a RoleBinding in the governed scope, and an overlapping GroupAccess, fail at preview, one line each", async () => {
    const current = [
      { identityUid: ci, roleUid: VIEWER },
      { identityUid: bob, roleUid: VIEWER },
    ];
    const inside = await failedPreview(
      declared(current, {
        roleBindings: [{ name: "ci-edits-folder", groupUid: folder, identityUid: ci, roleUid: EDITOR }],
      }),
      "conflicts with",
    );
    expect(inside).toHaveLength(1);
    // Whichever of the two the engine checks second fails, naming the other.
    expect(inside[0]).toMatch(
      /RoleBinding.*conflicts with .*GroupAccess|GroupAccess.*conflicts with .*RoleBinding/,
    );
    const overlapping = await failedPreview(
      declared(current, {
        groupAccess: [
          {
            name: "org-tree",
            groupUid: emulator.orgUid,
            scope: "subtree",
            bindings: [
              { identityUid: emulator.userUid, roleUid: OWNER },
              ...current.map((b) => ({ ...b, groupUid: folder })),
            ],
          },
        ],
      }),
      "conflicts with",
    );
    expect(overlapping).toHaveLength(1);
    expect(overlapping[0]).toMatch(/org-tree|GroupAccess/);
    expect(overlapping[0]).toContain("scopes overlap");
  });

  test("destroy removes the bindings it declared", async () => {
    await front.apply(
      stack,
      declared([
        { identityUid: ci, roleUid: VIEWER },
        { identityUid: bob, roleUid: VIEWER },
      ]),
    );
    emulator.clearRequestLog();
    await stack.destroy();
    expect(writes().map((r) => r.method)).toEqual(["DELETE", "DELETE"]);
  });

  (imports ? test : test.skip)(
    "pulumi import takes a group's bindings by its uid, an identity's by its uid",
    async () => {
      const imported = (await emulator.client.groups.create(emulator.orgUid, { name: "imported" })).uid;
      await emulator.client.roleBindings.create(imported, { identityUid: ci, roleUid: VIEWER });
      const group = await stack.run([
        "import",
        "platform:iam:GroupAccess",
        "imported-access",
        imported,
        "--yes",
      ]);
      expect(group.stdout).toContain("type: platform:iam:GroupAccess");
      expect(group.stdout).toContain(`identityUid: ${ci}`);
      expect(group.stdout).toContain(`groupUid: ${imported}`);
      const identity = await stack.run(["import", "platform:iam:IdentityAccess", "ci-access", ci, "--yes"]);
      expect(identity.stdout).toContain("type: platform:iam:IdentityAccess");
      expect(identity.stdout).toContain(`roleUid: ${VIEWER}`);
    },
  );
});
