/**
 * Organizations for the access tools' tests, made through the API, with what each identity should hold worked out
 * here from the plan itself (a binding grants its role's capabilities on its group and every group below; the
 * union over bindings there and above: spec §5.2), not from the code under test. Built-in roles' capabilities come
 * from the emulator's table, custom roles' from the plan.
 *
 * `useAccessCli` runs `platform-access` in process against an emulator started for the calling file.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import fc from "fast-check";
import { BUILTIN_ROLES, startEmulator, type Emulator } from "../../emulator";
import { main } from "../../commands/access/cli";
import { capture } from "./fixtures";

export interface AccessCli {
  /** The emulator, the owner's environment and a scratch directory: read them inside hooks and tests. */
  get(): { emulator: Emulator; env: Record<string, string>; tmp: string };
  /** Runs the command with `as` (default: the owner's environment). */
  run(argv: string[], as?: Record<string, string>): Promise<{ code: number; out: string; err: string[] }>;
  /** Runs it with --json and parses the answer; throws with its error lines when it fails. */
  json<T>(argv: string[], as?: Record<string, string>): Promise<T>;
}

/** Starts an emulator and a scratch directory before the calling file's tests and removes both after. */
export function useAccessCli(): AccessCli {
  let current: { emulator: Emulator; env: Record<string, string>; tmp: string } | undefined;
  beforeAll(async () => {
    const emulator = await startEmulator();
    const env = { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: emulator.token };
    current = { emulator, env, tmp: fs.mkdtempSync(path.join(os.tmpdir(), "platform-access-")) };
  });
  afterAll(async () => {
    await current?.emulator.close();
    if (current !== undefined) fs.rmSync(current.tmp, { recursive: true, force: true });
  });
  const get = () => {
    if (current === undefined) throw new Error("useAccessCli: read it inside a hook or a test");
    return current;
  };
  const run: AccessCli["run"] = async (argv, as) => {
    const io = capture(as ?? get().env);
    const code = await main(argv, io);
    return { code, out: io.out, err: io.err };
  };
  const json = async <T>(argv: string[], as?: Record<string, string>): Promise<T> => {
    const r = await run([...argv, "--json"], as);
    if (r.code !== 0) throw new Error(r.err.join("\n"));
    return JSON.parse(r.out) as T;
  };
  return { get, run, json };
}

export const CAP_POOL = [
  "CAP_IAM_GROUPS_LIST",
  "CAP_IAM_GROUPS_CREATE",
  "CAP_IAM_IDENTITY_LIST",
  "CAP_IAM_ROLE_BINDINGS_CREATE",
  "CAP_REPO_LIST",
  "CAP_TAG_LIST",
  "CAP_ADVISORIES_LIST",
] as const;

/** The plan of an organization: indices into the lists; -1 is the organization itself. */
export interface OrgPlan {
  /** Each group's parent (an earlier group, or -1). */
  groups: number[];
  /** Each workload identity's group. */
  workloads: number[];
  /** How many root-level users (people). */
  people: number;
  /** Each custom role: its group and capabilities. */
  roles: { group: number; capabilities: string[] }[];
  /** Each binding: who (workloads first, then people), which role (custom by index, or a built-in by name), where. */
  bindings: { identity: number; role: number | "viewer" | "editor" | "registry.pull"; group: number }[];
}

/** Random plans: up to `groups` groups, 3 workloads, 2 people, `roles` custom roles, `bindings` bindings. */
export function orgPlans(max: { groups: number; roles: number; bindings: number }): fc.Arbitrary<OrgPlan> {
  return fc.integer({ min: 0, max: max.groups }).chain((n) =>
    fc.record({
      groups: fc.tuple(...Array.from({ length: n }, (_, i) => fc.integer({ min: -1, max: i - 1 }))),
      workloads: fc.array(fc.integer({ min: -1, max: n - 1 }), { maxLength: 3 }),
      people: fc.integer({ min: 0, max: 2 }),
      roles: fc.array(
        fc.record({
          group: fc.integer({ min: -1, max: n - 1 }),
          capabilities: fc.uniqueArray(fc.constantFrom(...CAP_POOL), { minLength: 1, maxLength: 4 }),
        }),
        { maxLength: max.roles },
      ),
      bindings: fc.array(
        fc.record({
          identity: fc.nat(10),
          role: fc.oneof(
            fc.nat(5),
            fc.constantFrom("viewer" as const, "editor" as const, "registry.pull" as const),
          ),
          group: fc.integer({ min: -1, max: n - 1 }),
        }),
        { maxLength: max.bindings },
      ),
    }),
  );
}

export interface MadeOrg {
  org: string;
  groups: string[];
  identities: { uid: string; name: string }[];
  roles: { uid: string; capabilities: string[] }[];
  /** Every binding in effect, the bootstrap owner's on the organization included. */
  bindings: { uid: string; group: string; identity: string; role: string; capabilities: string[] }[];
}

const builtinByName = new Map(BUILTIN_ROLES.map((r) => [r.name, r]));

/** Makes the plan through the API as the organization's owner; bindings a plan cannot have are left out. */
export async function makeOrg(emulator: Emulator, plan: OrgPlan): Promise<MadeOrg> {
  const client = emulator.client;
  const org = emulator.orgUid;
  const at = (made: string[], i: number) => (i < 0 ? org : made[i]!);
  const groups: string[] = [];
  for (const [i, parent] of plan.groups.entries())
    groups.push((await client.groups.create(at(groups, parent), { name: `g${i}` })).uid);
  const identities: { uid: string; name: string }[] = [];
  for (const [i, g] of plan.workloads.entries()) {
    const made = await client.identities.create(at(groups, g), {
      name: `wl${i}`,
      claimMatch: { issuer: "https://issuer.example.com", subject: `wl${i}` },
    });
    identities.push({ uid: made.uid, name: made.name });
  }
  for (let i = 0; i < plan.people; i++) {
    const user = emulator.createUser(`person${i}`);
    identities.push({ uid: user.uid, name: `person${i}` });
  }
  const roles: MadeOrg["roles"] = [];
  const roleGroup: string[] = [];
  for (const [i, r] of plan.roles.entries()) {
    const made = await client.roles.create(at(groups, r.group), {
      name: `role${i}`,
      capabilities: r.capabilities,
    });
    roles.push({ uid: made.uid, capabilities: [...r.capabilities] });
    roleGroup.push(at(groups, r.group));
  }
  const owner = (await client.roleBindings.list({ childrenOf: org })).items.find(
    (b) => b.identity?.uid === emulator.userUid,
  )!;
  const bindings: MadeOrg["bindings"] = [
    {
      uid: owner.uid,
      group: org,
      identity: emulator.userUid,
      role: owner.role!.uid,
      capabilities: [...builtinByName.get("owner")!.capabilities],
    },
  ];
  const seen = new Set<string>();
  for (const b of plan.bindings) {
    if (identities.length === 0) break;
    const identity = identities[b.identity % identities.length]!.uid;
    const group = at(groups, b.group);
    let role: string;
    let capabilities: string[];
    if (typeof b.role === "number") {
      if (roles.length === 0) continue;
      const i = b.role % roles.length;
      // A custom role applies on its group and below.
      if (!(group === roleGroup[i] || group.startsWith(`${roleGroup[i]}/`))) continue;
      role = roles[i]!.uid;
      capabilities = roles[i]!.capabilities;
    } else {
      const r = builtinByName.get(b.role)!;
      role = r.uid;
      capabilities = [...r.capabilities];
    }
    const key = `${identity} ${role} ${group}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const made = await client.roleBindings.create(group, { identityUid: identity, roleUid: role });
    bindings.push({ uid: made.uid, group, identity, role, capabilities });
  }
  return { org, groups: [org, ...groups], identities, roles, bindings };
}

/** "group identity capability" → the uids of the bindings granting it, worked out from the plan. */
export function expectedGrants(made: MadeOrg, under = made.org): Map<string, string[]> {
  const grants = new Map<string, string[]>();
  for (const group of made.groups) {
    if (!(group === under || group.startsWith(`${under}/`))) continue;
    for (const b of made.bindings) {
      if (!(group === b.group || group.startsWith(`${b.group}/`))) continue;
      for (const c of b.capabilities) {
        const key = `${group} ${b.identity} ${c}`;
        grants.set(key, [...(grants.get(key) ?? []), b.uid].sort());
      }
    }
  }
  return grants;
}
