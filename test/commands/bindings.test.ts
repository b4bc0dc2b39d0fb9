/**
 * platform-import --bindings (commands/import/bindings.ts): the role bindings of a walk or a report written as one
 * GroupAccess per group or one IdentityAccess per identity instead of one RoleBinding each, against the in-process
 * emulator; a scope is held by one access resource only when the document takes every binding in it (also a
 * fast-check property over random bindings); refusals.
 * `pulumi import` of such a document under the real engine: test/e2e/adopt.e2e.test.ts.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import fc from "fast-check";
import type { Emulator } from "../../emulator";
import { useOrganization } from "../organization";
import { BINDINGS_FORMS, withBindingsAs } from "../../commands/import/bindings";
import { main } from "../../commands/import/cli";
import type { Found, ImportDocument } from "../../commands/import/document";
import { IMPORT_KINDS } from "../../commands/kinds";
import { walkGroup } from "../../commands/import/walk";
import { everyKind, stateExport, type EveryKind, capture } from "./fixtures";

jest.setTimeout(120_000);

const rows = (doc: ImportDocument) => doc.resources.map((r) => [r.type, r.name, r.id, r.parent ?? null]);

describe("platform-import --bindings", () => {
  const organization = useOrganization();
  let emulator: Emulator;
  let o: EveryKind;
  let env: Record<string, string>;
  let orgName: string;
  let dir: string;

  beforeAll(async () => {
    emulator = organization.emulator;
    o = await everyKind(emulator.client, emulator.orgUid);
    orgName = await organization.name();
    env = {
      PLATFORM_API_URL: emulator.url,
      PLATFORM_TOKEN: emulator.token,
      PLATFORM_RETRY_BASE_DELAY_MS: "0",
    };
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "platform-bindings-"));
  });
  afterAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("role-binding (the default) writes one RoleBinding per binding, as before", async () => {
    const plain = await walkGroup(emulator.client, emulator.orgUid);
    const explicit = await walkGroup(emulator.client, emulator.orgUid, { bindings: "role-binding" });
    expect(explicit.document).toEqual(plain.document);
    expect(plain.document.resources.filter((r) => r.type === IMPORT_KINDS.roleBinding.token)).toHaveLength(2);
  });

  it("group-access writes one GroupAccess per group holding bindings, by the group's uid, and no RoleBinding", async () => {
    const { document, counts } = await walkGroup(emulator.client, emulator.orgUid, {
      bindings: "group-access",
    });
    const access = rows(document).filter(([type]) => type !== IMPORT_KINDS.roleBinding.token);
    expect(rows(document).filter(([type]) => type === IMPORT_KINDS.roleBinding.token)).toEqual([]);
    expect(access.filter(([type]) => type === "platform:iam:GroupAccess")).toEqual([
      ["platform:iam:GroupAccess", `${orgName}-access`, emulator.orgUid, orgName],
      ["platform:iam:GroupAccess", "legacy-access", o.group.uid, "legacy"],
    ]);
    // The objects counted are still the bindings found.
    expect(counts.roleBinding).toBe(2);
    // The access resources come after the identities and roles they refer to.
    const types = document.resources.map((r) => r.type);
    expect(types.indexOf("platform:iam:GroupAccess")).toBeGreaterThan(
      types.lastIndexOf(IMPORT_KINDS.role.token),
    );
  });

  it("identity-access writes one IdentityAccess per identity under the group; others keep RoleBindings", async () => {
    const io = capture(env);
    expect(await main([emulator.orgUid, "--bindings=identity-access"], io)).toBe(0);
    const document = JSON.parse(io.out) as ImportDocument;
    expect(rows(document).filter(([type]) => type === "platform:iam:IdentityAccess")).toEqual([
      ["platform:iam:IdentityAccess", "legacy-ci-access", o.identity.uid, "legacy"],
    ]);
    // The bootstrap owner is a user, not an identity of the organization: its binding stays a RoleBinding.
    expect(rows(document).filter(([type]) => type === IMPORT_KINDS.roleBinding.token)).toEqual([
      [IMPORT_KINDS.roleBinding.token, "demo-user-owner", expect.any(String), orgName],
    ]);
    expect(document.platformImport.warnings[0]).toMatch(
      /keep one RoleBinding per binding instead of a IdentityAccess: user demo-user \(1: the identity is not under the walked group\)/,
    );
    expect(io.err.join("\n")).toMatch(/^warning: these identities keep one RoleBinding/m);
  });

  it("in a report, a group of which a stack manages a binding keeps its unmanaged ones as RoleBindings", async () => {
    const c = emulator.client;
    const extra = await c.identities.create(o.group.uid, {
      name: "extra",
      claimMatch: { issuer: "https://issuer.example.com", subject: "extra" },
    });
    const bound = await c.roleBindings.create(o.group.uid, { identityUid: extra.uid, roleUid: o.viewer.uid });
    const team = await c.groups.create(o.group.uid, { name: "team" });
    const inTeam = await c.roleBindings.create(team.uid, { identityUid: extra.uid, roleUid: o.viewer.uid });
    try {
      const state = path.join(dir, "state.json");
      fs.writeFileSync(
        state,
        JSON.stringify(
          stateExport("s", [
            { front: "native", token: IMPORT_KINDS.roleBinding.token, uid: o.binding.uid, name: "b" },
          ]),
        ),
      );
      const out = path.join(dir, "import.json");
      const io = capture(env);
      await main(["report", o.group.uid, "--state", state, "--bindings", "group-access", "--out", out], io);
      const document = JSON.parse(fs.readFileSync(out, "utf8")) as ImportDocument;
      const bindings = rows(document).filter(
        ([type]) => type === IMPORT_KINDS.roleBinding.token || type === "platform:iam:GroupAccess",
      );
      expect(bindings).toEqual([
        [IMPORT_KINDS.roleBinding.token, "extra-viewer", bound.uid, null],
        ["platform:iam:GroupAccess", "team-access", team.uid, "team"],
      ]);
      expect(document.platformImport.warnings[0]).toMatch(
        /groups keep one RoleBinding per binding instead of a GroupAccess: folder legacy \(1: a stack manages another of its bindings\)/,
      );
    } finally {
      await c.roleBindings.delete(inTeam.uid);
      await c.roleBindings.delete(bound.uid);
    }
  });

  it.each([
    [
      ["ORG", "--bindings=per-group"],
      /--bindings is one of role-binding, group-access, identity-access, not "per-group"$/,
    ],
    [
      ["--terraform-state", "t.tfstate", "--bindings", "group-access"],
      /a Terraform state keeps its role bindings$/,
    ],
  ])("refuses %j: one line, exit 1", async (args, message) => {
    const io = capture(env);
    expect(
      await main(
        args.map((a) => (a === "ORG" ? emulator.orgUid : a)),
        io,
      ),
    ).toBe(1);
    expect(io.err).toEqual([expect.stringMatching(message)]);
    expect(io.out).toBe("");
  });
});

describe("withBindingsAs (property)", () => {
  const hex = (i: number) => i.toString(16).padStart(16, "0");
  const org = "a".repeat(40);
  const group = (g: number) => `${org}/${hex(g)}`;
  const identity = (i: number) => `${org}/${hex(100 + i)}`;
  const binding = fc.record({ g: fc.nat(3), i: fc.nat(3), r: fc.nat(2), taken: fc.boolean() });
  const cases = fc.record({
    bindings: fc.uniqueArray(binding, { selector: (b) => `${b.g} ${b.i} ${b.r}`, maxLength: 24 }),
    visible: fc.uniqueArray(fc.nat(3), { maxLength: 4 }),
    form: fc.constantFrom(...BINDINGS_FORMS),
  });

  it("holds every taken binding exactly once, and a scope whole or not at all", () => {
    fc.assert(
      fc.property(cases, ({ bindings, visible, form }) => {
        const listed: Found[] = bindings.map((b, n) => ({
          kind: "roleBinding",
          uid: `${group(b.g)}/${hex(1000 + n)}`,
          base: "b",
          group: group(b.g),
          binding: {
            identity: { uid: identity(b.i), name: `i${b.i}` },
            role: { uid: `role-${b.r}`, name: "r" },
          },
        }));
        const other: Found = { kind: "group", uid: group(0), base: "g0", group: org };
        const taken = listed.filter((_, n) => bindings[n]!.taken);
        const { found, warnings } = withBindingsAs(form, [other, ...taken], {
          listed,
          identities: new Set(visible.map(identity)),
          names: new Map(),
        });
        expect(found.filter((f) => f.kind === "group")).toEqual([other]);
        const scopeOf = (b: Found) => (form === "group-access" ? b.group! : b.binding!.identity.uid);
        const access = new Set(
          found.filter((f) => f.kind === "groupAccess" || f.kind === "identityAccess").map((f) => f.uid),
        );
        if (form === "role-binding") expect(access.size).toBe(0);
        const kept = new Set(found.filter((f) => f.kind === "roleBinding").map((f) => f.uid));
        for (const b of taken) expect(kept.has(b.uid) !== access.has(scopeOf(b))).toBe(true);
        for (const b of listed.filter((b) => !taken.includes(b))) {
          expect(kept.has(b.uid)).toBe(false);
          expect(access.has(scopeOf(b))).toBe(false); // a scope is taken whole or not at all
        }
        if (form === "identity-access")
          for (const uid of access) expect(visible.map(identity)).toContain(uid);
        expect(warnings.length > 0).toBe(form !== "role-binding" && kept.size > 0);
      }),
      { seed: 2828, numRuns: 300 },
    );
  });
});
