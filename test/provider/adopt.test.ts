/**
 * No input that does nothing: `adopt` is declared by exactly the resources whose create can find an
 * existing object to take over (a natural key the provider looks up), and it works there; GroupAccess and
 * IdentityAccess (whose create always takes their scope over) and GroupInvite (whose code cannot be read back) do
 * not have it. A stack whose state still carries `adopt: false` for one of those refreshes and updates with no
 * diff and no error.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import groupAccess = require("../../provider/iam/group-access.provider");
import identityAccess = require("../../provider/iam/identity-access.provider");
import groupInvite = require("../../provider/iam/group-invite.provider");
import group = require("../../provider/iam/group.provider");
import { resetClaims } from "../../provider/iam/access";
import { RESOURCES } from "../../provider/catalogue";
import { useHarness } from "./harness";
import { builtinRole, organizationOf } from "../organization";

const root = path.join(__dirname, "..", "..");
const schema = JSON.parse(fs.readFileSync(path.join(root, "schema.json"), "utf8")) as {
  resources: Record<string, { inputProperties: Record<string, { description?: string }> }>;
};

/** The resources whose create looks an existing object up by its natural key. */
const ADOPTING = ["Group", "Identity", "Role", "RoleBinding", "IdentityProvider", "AccountAssociation"];

describe("which resources take adopt", () => {
  test.each(RESOURCES.map((r) => [r.declaration.name, r.declaration] as const))(
    "%s: declared and in schema.json exactly where it has an effect",
    (name, d) => {
      const declared = Object.hasOwn(d.inputs, "adopt");
      const inSchema = Object.hasOwn(schema.resources[d.token]!.inputProperties, "adopt");
      expect([name, declared, inSchema]).toEqual([name, ADOPTING.includes(name), ADOPTING.includes(name)]);
    },
  );

  test("no input of any resource is documented as doing nothing", () => {
    for (const [token, resource] of Object.entries(schema.resources))
      for (const [key, property] of Object.entries(resource.inputProperties))
        expect([token, key, property.description ?? ""]).not.toEqual([
          token,
          key,
          expect.stringMatching(/has no effect|not supported/i),
        ]);
  });
});

describe("old state that carries adopt: false", () => {
  const h = useHarness(resetClaims);
  const VIEWER = builtinRole("viewer");

  const identity = (name: string) => organizationOf(h.emulator).identity(name);

  test.each([
    [
      "GroupAccess",
      groupAccess,
      async () => {
        const folder = await organizationOf(h.emulator).folder("folder");
        const ci = await identity("ci");
        return { groupUid: folder.uid, bindings: [{ identityUid: ci.uid, roleUid: VIEWER }] };
      },
    ],
    [
      "IdentityAccess",
      identityAccess,
      async () => {
        const ci = await identity("ci");
        return { identityUid: ci.uid, bindings: [{ groupUid: h.emulator.orgUid, roleUid: VIEWER }] };
      },
    ],
    [
      "GroupInvite",
      groupInvite,
      async () => ({ groupUid: h.emulator.orgUid, roleUid: VIEWER, ttl: "86400s" }),
    ],
  ] as const)(
    "%s: check, refresh, diff and update with no diff and no error",
    async (_name, provider, inputs) => {
      const news = await inputs();
      const { id, outs } = await provider.create(news);
      const olds = { ...outs, adopt: false };
      const checked = await provider.check!(olds, news);
      expect(checked.failures ?? []).toEqual([]);
      expect(checked.inputs).not.toHaveProperty("adopt");
      const refreshed = await provider.read!(id, olds);
      expect(refreshed.id).toBe(id);
      expect(refreshed.inputs ?? {}).not.toHaveProperty("adopt");
      // What the engine passes on: the checked inputs (defaults applied).
      const checkedNews = checked.inputs as Record<string, unknown>;
      const diff = await provider.diff!(id, olds, checkedNews);
      expect([diff.changes, diff.replaces ?? []]).toEqual([false, []]);
      h.mark();
      const updated = await provider.update!(id, olds, checkedNews);
      expect(updated.outs).not.toHaveProperty("adopt");
      expect(h.requestsSinceMark().filter((r) => r.method !== "GET")).toEqual([]);
    },
  );

  test("adopt still works where it is declared: a Group takes over its namesake", async () => {
    const existing = await h.emulator.client.groups.create(h.emulator.orgUid, { name: "taken" });
    const { id } = await group.create({ name: "taken", parentUid: h.emulator.orgUid, adopt: true });
    expect(id).toBe(existing.uid);
  });
});
