/**
 * The emulator's routes ask the access model (sdk/access-model.ts) for what each operation needs, and
 * docs/access-model.md's table of operations says the same: one place, COLLECTION_ACCESS.
 *
 *   - For one object of every collection, a caller bound exactly at the model's position of its uid, without the
 *     capability the model names, gets 403 naming that capability on that position (GET, PATCH, DELETE as served;
 *     a create under the group likewise), and with it, gets past that check. A route that checked another
 *     capability, or at another group, would name it and fail here.
 *   - The stored object's access group (what lists filter on) is the model's position of its uid.
 *   - The docs' table is the one computed here from COLLECTION_ACCESS and the route table.
 */
import { specsInOrder } from "../../emulator/routes/specs";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { COLLECTION_ACCESS, capabilityFor, type Collection, type Verb } from "../../sdk/access-model";
import { routeTable } from "../../emulator/routes/table";
import type { Control } from "../../emulator/routes/control";
import type { CollectionSpec } from "../../emulator/routes/crud";
import { start, type Api } from "./helpers";
import { buildTree, type Tree } from "./tree";

const SPECS: readonly CollectionSpec[] = specsInOrder();

/** Which verbs the route table serves for a collection, by its prefix. */
function servedVerbs(prefix: string): Set<Verb> {
  const lines = new Set(routeTable({} as Control).map((r) => `${r.method} ${r.url}`));
  const verbs = new Set<Verb>();
  if (lines.has(`GET ${prefix}`) || lines.has(`GET ${prefix}/*`)) verbs.add("LIST");
  if (lines.has(`POST ${prefix}/*`)) verbs.add("CREATE");
  if (lines.has(`PATCH ${prefix}/*`)) verbs.add("UPDATE");
  if (lines.has(`DELETE ${prefix}/*`)) verbs.add("DELETE");
  return verbs;
}

/** The position rule of a collection, read from what it does to a uid four segments deep. */
function positionRule(collection: Collection): string {
  const uid = "o/p/q/r";
  const position = COLLECTION_ACCESS[collection].position(uid);
  if (position === uid) return "the object's own uid";
  if (position === "o/p/q") return "its parent group";
  if (position === "o/p") return "its repo's group";
  throw new Error(`no description for the position rule of ${collection} (${position})`);
}

/** The docs' table of operations, computed. */
export function operationsTable(): string {
  const cell = (collection: Collection, verb: Verb, served: Set<Verb>) =>
    served.has(verb) ? `\`${capabilityFor(collection, verb)}\`` : "—";
  const rows = SPECS.map((spec) => {
    const served = servedVerbs(spec.prefix);
    return `| \`${spec.kind}\` | \`${spec.prefix}\` | ${(["CREATE", "LIST", "UPDATE", "DELETE"] as const)
      .map((verb) => cell(spec.kind, verb, served))
      .join(" | ")} | ${positionRule(spec.kind)} |`;
  });
  return [
    "| collection | path | create (on the parent group) | get, list | update | delete | position of an object |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
}

test("docs/access-model.md's table of operations is COLLECTION_ACCESS and the route table", () => {
  const doc = readFileSync(path.join(__dirname, "../../docs/access-model.md"), "utf8");
  const begin = "<!-- operations table: checked by test/emulator/access-wiring.test.ts -->";
  const from = doc.indexOf(begin);
  expect(from).toBeGreaterThan(0);
  const table = doc
    .slice(from + begin.length)
    .replace(/^\n+/, "")
    .split("\n\n")[0]!
    .trim();
  // Prettier may pad the cells: compare them trimmed.
  const cells = (text: string) =>
    text.split("\n").map((line) =>
      line
        .split("|")
        .map((c) => c.trim())
        .map((c) => (/^-+$/.test(c) ? "---" : c)),
    );
  expect(cells(table)).toEqual(cells(operationsTable()));
});

describe("every route checks the model's capability at the model's position", () => {
  let api: Api;
  let tree: Tree;
  let unrelated: string;
  /** Custom roles on the organization holding exactly one capability, by capability. */
  const single = new Map<string, string>();

  beforeAll(async () => {
    api = await start();
    tree = await buildTree(api);
    // A capability no route checks: bound with it, a caller sees the position and holds nothing there.
    unrelated = await roleWith(["CAP_MANIFEST_LIST"]);
  }, 30_000);
  afterAll(() => api.emulator.close());

  async function roleWith(capabilities: string[]): Promise<string> {
    const made = await api.post(`/iam/v2beta1/roles/${tree.org}`, {
      name: capabilities.join("+"),
      capabilities,
    });
    expect(made.status).toBe(200);
    return made.body.uid as string;
  }

  async function callerWith(roleUid: string, at: string): Promise<string> {
    const user = api.emulator.createUser("probe");
    const bound = await api.post(`/iam/v2beta1/roleBindings/${at}`, { identityUid: user.uid, roleUid });
    expect(bound.status).toBe(200);
    return user.token;
  }

  async function roleHolding(capability: string): Promise<string> {
    const known = single.get(capability);
    if (known !== undefined) return known;
    const uid = await roleWith([capability]);
    single.set(capability, uid);
    return uid;
  }

  test.each(SPECS.map((spec) => [spec.kind, spec] as const))("%s", async (kind, spec) => {
    const target = tree.targets.find((t) => t.kind === kind)!;
    const position = COLLECTION_ACCESS[kind].position(target.uid);
    const served = servedVerbs(spec.prefix);
    const needs = (verb: Verb) => `${capabilityFor(kind, verb)} is required on ${position}`;

    // Without the read capability: 403 naming it at the position, for every verb on the object.
    const none = await callerWith(unrelated, position);
    const get = await api.get(`${spec.prefix}/${target.uid}`, none);
    expect([get.status, get.body.message]).toEqual([403, expect.stringContaining(needs("LIST"))]);

    // With the read capability only: the read passes, a change is 403 naming the verb's capability there.
    const reader = await callerWith(await roleHolding(capabilityFor(kind, "LIST")), position);
    expect((await api.get(`${spec.prefix}/${target.uid}`, reader)).status).toBe(200);
    if (served.has("UPDATE") && target.patch !== undefined) {
      const patch = await api.patch(`${spec.prefix}/${target.uid}`, target.patch, reader);
      expect([patch.status, patch.body.message]).toEqual([403, expect.stringContaining(needs("UPDATE"))]);
    }
    if (served.has("DELETE")) {
      const del = await api.del(`${spec.prefix}/${target.uid}`, reader);
      expect([del.status, del.body.message]).toEqual([403, expect.stringContaining(needs("DELETE"))]);
    }
    if (served.has("CREATE")) {
      const parent = kind === "identityProviders" ? tree.org : tree.folderA;
      const create = await api.post(`${spec.prefix}/${parent}`, {}, reader);
      const needed = `${capabilityFor(kind, "CREATE")} is required on ${parent}`;
      expect([create.status, create.body.message]).toEqual([403, expect.stringContaining(needed)]);
    }

    // Lists filter on the stored object's access group: the model's position of its uid. A reader bound exactly
    // there lists it; one bound only on a group below that position does not.
    const listed = await api.get(`${spec.prefix}?pageSize=200`, reader);
    const member = (listed.body[spec.plural] as { uid: string }[]).map((o) => o.uid);
    expect(member).toContain(target.uid);
    const below = await api.post(`/iam/v2beta1/groups/${position}`, { name: "below" });
    if (below.status === 200) {
      const deeper = await callerWith(await roleHolding(capabilityFor(kind, "LIST")), below.body.uid);
      const seen = await api.get(`${spec.prefix}?pageSize=200`, deeper);
      expect((seen.body[spec.plural] as { uid: string }[]).map((o) => o.uid)).not.toContain(target.uid);
      await api.del(`/iam/v2beta1/groups/${below.body.uid}`);
    }
  });
});
