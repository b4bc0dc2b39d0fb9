/**
 * What the access model says is what the emulator enforces (fast-check, fixed seed).
 *
 * Each run resets the emulator and builds, as the owner, a random group tree under the organization, custom roles
 * (random capability sets, each defined at a random group), root-level users (`emulator.createUser`) and a workload
 * identity (an identity in the tree whose API token comes from the token exchange), and random bindings of them
 * (built-in or custom roles, at random groups where the role applies). The model is then built from what the API
 * lists to the owner (`GET` roles, built-in ones included, role bindings and groups: `AccessModel`), and for random
 * (identity, capability, group) triples the identity performs, with its own token, the operation that needs that
 * capability there (a create under the group, a read, an update or a delete of a throwaway object the owner made
 * there). For every triple:
 *   - the request succeeds exactly when the model says every need of the operation is met (`unmetNeeds` empty:
 *     the capability itself, the read the service checks first, and for grants the no-escalation needs);
 *   - refused, it is 404 exactly when the model says the identity does not see the position (`sees` false), and
 *     403 otherwise, naming the first capability the model says is missing.
 *
 * The operations cover every capability a v2beta1 route checks: the CREATE / LIST / UPDATE / DELETE of groups,
 * identities, roles, role bindings, identity providers (on the organization: they live only there) and account
 * associations; invites (CREATE / LIST / DELETE: the API has no invite update); the LIST of repos, tags and
 * advisories (the API serves them read-only).
 */
import fc from "fast-check";
import {
  AccessModel,
  needsOf,
  sees,
  unmetNeeds,
  type BindingFacts,
  type Collection,
  type Operation,
  type RoleFacts,
} from "../../sdk/access-model";
import { parentOf } from "../../sdk/uidp";
import { start, type Api, type WireResponse } from "./helpers";

export const ACCESS_MODEL_RUNS = Number(process.env.ACCESS_MODEL_RUNS ?? 200);
export const QUERIES_PER_RUN = 12;

let api: Api;
let checked = 0;
const checkedCapabilities = new Map<string, { held: number; refused403: number; refused404: number }>();

beforeAll(async () => {
  api = await start();
});
afterAll(async () => {
  await api.emulator.close();
  // The counts the issue asks for, in the test's output.
  console.log(
    `access model property: ${ACCESS_MODEL_RUNS} runs, ${checked} (identity, capability, group) triples checked\n` +
      [...checkedCapabilities]
        .sort()
        .map(
          ([c, n]) => `  ${c}: ${n.held} allowed, ${n.refused403} refused 403, ${n.refused404} refused 404`,
        )
        .join("\n"),
  );
});

const enc = encodeURIComponent;

async function ok(response: Promise<WireResponse>, what: string): Promise<WireResponse["body"]> {
  const r = await response;
  if (r.status !== 200) throw new Error(`${what}: ${r.status} ${r.text}`);
  return r.body;
}

/** Every item of a v2 list, following pages (small pages, so the paging path runs). */
async function listAll(path: string, member: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let token: string | undefined;
  do {
    const sep = path.includes("?") ? "&" : "?";
    const page = await ok(
      api.get(`${path}${sep}pageSize=7${token === undefined ? "" : `&pageToken=${enc(token)}`}`),
      `list ${path}`,
    );
    items.push(...((page[member] as Record<string, unknown>[] | undefined) ?? []));
    token = page.nextPageToken;
  } while (token !== undefined && token !== "");
  return items;
}

/** The model from what the API lists to the owner. */
async function modelFromApi(): Promise<{ model: AccessModel; roles: RoleFacts[]; groups: string[] }> {
  const roles = (await listAll("/iam/v2beta1/roles", "roles")).map((r) => ({
    uid: r.uid as string,
    name: r.name as string,
    capabilities: r.capabilities as string[],
  }));
  // A binding on the wire names its identity, role and group as objects (RoleBinding in the OpenAPI).
  const bindings: BindingFacts[] = (await listAll("/iam/v2beta1/roleBindings", "roleBindings")).map((b) => {
    const ref = (member: string) => (b[member] as { uid: string }).uid;
    return { uid: b.uid as string, group: ref("group"), identity: ref("identity"), role: ref("role") };
  });
  const groups = (await listAll("/iam/v2beta1/groups", "groups")).map((g) => g.uid as string);
  return { model: new AccessModel({ roles, bindings }), roles, groups };
}

/** An operation to try: what the model is asked, and the request that performs it with a token. */
interface Trial {
  operation: Operation;
  send: (token: string) => Promise<WireResponse>;
}

interface RunContext {
  org: string;
  roles: RoleFacts[];
  builtin: (name: string) => RoleFacts;
  /** Per group: a repo, a tag of it and an advisory there (seeded). */
  registry: Map<string, { repo: string; tag: string; advisory: string }>;
  serial: () => number;
}

const asOwner = (path: string, body: unknown) => ok(api.post(path, body), `owner POST ${path}`);

/** A throwaway group under `group`, made by the owner. */
const throwawayGroup = async (ctx: RunContext, group: string): Promise<string> =>
  (await asOwner(`/iam/v2beta1/groups/${group}`, { name: `t${ctx.serial()}` })).uid;

const claimMatch = (subject: string) => ({ issuer: "https://ci.example.com", subject });

/** The operation that exercises `capability` on `group`. */
async function trialFor(ctx: RunContext, capability: string, group: string): Promise<Trial> {
  const viewer = ctx.builtin("viewer");
  const pull = ctx.builtin("registry.pull");
  const create = (collection: Collection, path: string, body: unknown, grants?: RoleFacts): Trial => ({
    operation: {
      verb: "CREATE",
      collection,
      parent: group,
      ...(grants !== undefined ? { grants: grants.capabilities, grantsWhat: `role ${grants.name}` } : {}),
    },
    send: (token) => api.post(path, body, token),
  });
  const read = (collection: Collection, prefix: string, uid: string): Trial => ({
    operation: { verb: "LIST", collection, uid },
    send: (token) => api.get(`${prefix}/${uid}`, token),
  });
  const update = (
    collection: Collection,
    prefix: string,
    uid: string,
    body: unknown,
    grants?: RoleFacts,
  ) => ({
    operation: {
      verb: "UPDATE" as const,
      collection,
      uid,
      ...(grants !== undefined ? { grants: grants.capabilities, grantsWhat: `role ${grants.name}` } : {}),
    },
    send: (token: string) =>
      api.patch(`${prefix}/${uid}?updateMask=${Object.keys(body as object).join(",")}`, body, token),
  });
  const remove = (collection: Collection, prefix: string, uid: string): Trial => ({
    operation: { verb: "DELETE", collection, uid },
    send: (token) => api.del(`${prefix}/${uid}`, token),
  });
  const n = ctx.serial();
  const describe = { description: `changed ${n}` };
  const groups = "/iam/v2beta1/groups";
  const identities = "/iam/v2beta1/identities";
  const roles = "/iam/v2beta1/roles";
  const bindings = "/iam/v2beta1/roleBindings";
  const invites = "/iam/v2beta1/groupInvites";
  const providers = "/iam/v2beta1/identityProviders";
  const associations = "/iam/v2beta1/accountAssociations";
  const identity = async () =>
    (await asOwner(`${identities}/${group}`, { name: `i${n}`, claimMatch: claimMatch(`s${n}`) })).uid;
  const role = async () =>
    (await asOwner(`${roles}/${group}`, { name: `r${n}`, capabilities: ["CAP_REPO_LIST"] })).uid;
  const binding = async () =>
    (
      await asOwner(`${bindings}/${group}`, {
        identityUid: api.emulator.createUser(`u${n}`).uid,
        roleUid: viewer.uid,
      })
    ).uid;
  const invite = async () =>
    (await asOwner(`${invites}/${group}`, { roleUid: viewer.uid, ttl: "3600s" })).uid;
  const provider = async () =>
    (
      await asOwner(`${providers}/${group}`, {
        name: `p${n}`,
        defaultRole: viewer.uid,
        oidc: { issuer: "https://sso.example.com", clientId: `c${n}` },
      })
    ).uid;
  const association = async () => {
    const at = await throwawayGroup(ctx, group);
    await asOwner(`${associations}/${at}`, { name: `a${n}` });
    return at;
  };
  const registry = ctx.registry.get(group)!;
  switch (capability) {
    case "CAP_IAM_GROUPS_CREATE":
      return create("groups", `${groups}/${group}`, { name: `g${n}` });
    case "CAP_IAM_GROUPS_LIST":
      return read("groups", groups, group);
    case "CAP_IAM_GROUPS_UPDATE":
      return update("groups", groups, group, describe);
    case "CAP_IAM_GROUPS_DELETE":
      return remove("groups", groups, await throwawayGroup(ctx, group));
    case "CAP_IAM_IDENTITY_CREATE":
      return create("identities", `${identities}/${group}`, {
        name: `i${n}`,
        claimMatch: claimMatch(`c${n}`),
      });
    case "CAP_IAM_IDENTITY_LIST":
      return read("identities", identities, await identity());
    case "CAP_IAM_IDENTITY_UPDATE":
      return update("identities", identities, await identity(), describe);
    case "CAP_IAM_IDENTITY_DELETE":
      return remove("identities", identities, await identity());
    case "CAP_IAM_ROLES_CREATE":
      // A role's capabilities are granted by creating it: no escalation.
      return create("roles", `${roles}/${group}`, { name: `r${n}`, capabilities: pull.capabilities }, pull);
    case "CAP_IAM_ROLES_LIST":
      return read("roles", roles, await role());
    case "CAP_IAM_ROLES_UPDATE":
      return update("roles", roles, await role(), describe);
    case "CAP_IAM_ROLES_DELETE":
      return remove("roles", roles, await role());
    case "CAP_IAM_ROLE_BINDINGS_CREATE":
      return create(
        "roleBindings",
        `${bindings}/${group}`,
        { identityUid: api.emulator.createUser(`b${n}`).uid, roleUid: viewer.uid },
        viewer,
      );
    case "CAP_IAM_ROLE_BINDINGS_LIST":
      return read("roleBindings", bindings, await binding());
    case "CAP_IAM_ROLE_BINDINGS_UPDATE":
      // Re-pointing a binding grants its new role there: no escalation.
      return update("roleBindings", bindings, await binding(), { roleUid: pull.uid }, pull);
    case "CAP_IAM_ROLE_BINDINGS_DELETE":
      return remove("roleBindings", bindings, await binding());
    case "CAP_IAM_GROUP_INVITES_CREATE":
      return create("groupInvites", `${invites}/${group}`, { roleUid: viewer.uid, ttl: "3600s" }, viewer);
    case "CAP_IAM_GROUP_INVITES_LIST":
      return read("groupInvites", invites, await invite());
    case "CAP_IAM_GROUP_INVITES_DELETE":
      return remove("groupInvites", invites, await invite());
    case "CAP_IAM_IDENTITY_PROVIDERS_CREATE":
      // Identity providers live only on organizations: the trial's group is the organization.
      return create(
        "identityProviders",
        `${providers}/${group}`,
        {
          name: `p${n}`,
          defaultRole: viewer.uid,
          oidc: { issuer: "https://sso.example.com", clientId: "c" },
        },
        viewer,
      );
    case "CAP_IAM_IDENTITY_PROVIDERS_LIST":
      return read("identityProviders", providers, await provider());
    case "CAP_IAM_IDENTITY_PROVIDERS_UPDATE":
      return update("identityProviders", providers, await provider(), describe);
    case "CAP_IAM_IDENTITY_PROVIDERS_DELETE":
      return remove("identityProviders", providers, await provider());
    case "CAP_IAM_ACCOUNT_ASSOCIATIONS_CREATE": {
      const at = await throwawayGroup(ctx, group);
      return {
        ...create("accountAssociations", `${associations}/${at}`, { name: `a${n}` }),
        operation: { verb: "CREATE", collection: "accountAssociations", parent: at },
      };
    }
    case "CAP_IAM_ACCOUNT_ASSOCIATIONS_LIST":
      return read("accountAssociations", associations, await association());
    case "CAP_IAM_ACCOUNT_ASSOCIATIONS_UPDATE":
      return update("accountAssociations", associations, await association(), describe);
    case "CAP_IAM_ACCOUNT_ASSOCIATIONS_DELETE":
      return remove("accountAssociations", associations, await association());
    case "CAP_REPO_LIST":
      return read("repos", "/registry/v2beta1/repos", registry.repo);
    case "CAP_TAG_LIST":
      return read("tags", "/registry/v2beta1/tags", registry.tag);
    case "CAP_ADVISORIES_LIST":
      return read("advisories", "/vulnerabilities/v2beta1/advisories", registry.advisory);
    default:
      throw new Error(`no operation exercises ${capability}`);
  }
}

/** Every capability an operation above exercises. */
export const EXERCISED: readonly string[] = [
  ...["GROUPS", "IDENTITY", "ROLES", "ROLE_BINDINGS", "IDENTITY_PROVIDERS", "ACCOUNT_ASSOCIATIONS"].flatMap(
    (k) => ["CREATE", "LIST", "UPDATE", "DELETE"].map((v) => `CAP_IAM_${k}_${v}`),
  ),
  "CAP_IAM_GROUP_INVITES_CREATE",
  "CAP_IAM_GROUP_INVITES_LIST",
  "CAP_IAM_GROUP_INVITES_DELETE",
  "CAP_REPO_LIST",
  "CAP_TAG_LIST",
  "CAP_ADVISORIES_LIST",
];

/** Custom roles draw from these: every exercised capability and some no operation here needs. */
const POOL = [...EXERCISED, "CAP_MANIFEST_LIST", "CAP_REPO_BLOBS_GET", "CAP_REPO_CREATE"];

interface Scenario {
  /** Group i (i ≥ 1) is a child of group parents[i-1] (< i); group 0 is the organization. */
  parents: number[];
  /** Custom roles: the group they are defined at and their capabilities. */
  customRoles: { at: number; capabilities: string[] }[];
  users: number;
  /** The workload identity lives at this group. */
  workloadAt: number;
  /** Bindings: identity index (users first, then the workload), group, role (built-in name or custom index). */
  bindings: { who: number; at: number; role: string | number }[];
  queries: { who: number; capability: string; at: number }[];
}

const BUILTIN_NAMES = ["owner", "editor", "viewer", "registry.pull"];

const scenario: fc.Arbitrary<Scenario> = fc
  .record({
    groupCount: fc.integer({ min: 1, max: 6 }),
    roleCount: fc.integer({ min: 0, max: 3 }),
    users: fc.integer({ min: 1, max: 3 }),
  })
  .chain(({ groupCount, roleCount, users }) => {
    const group = fc.nat({ max: groupCount });
    const who = fc.nat({ max: users });
    return fc.record({
      parents: fc.tuple(...Array.from({ length: groupCount }, (_, i) => fc.nat({ max: i }))),
      customRoles: fc.array(fc.record({ at: group, capabilities: fc.subarray(POOL, { minLength: 1 }) }), {
        minLength: roleCount,
        maxLength: roleCount,
      }),
      users: fc.constant(users),
      workloadAt: group,
      bindings: fc.array(
        fc.record({
          who,
          at: group,
          role:
            roleCount === 0
              ? fc.constantFrom(...BUILTIN_NAMES)
              : fc.oneof(fc.constantFrom(...BUILTIN_NAMES), fc.nat({ max: roleCount - 1 })),
        }),
        { minLength: 2, maxLength: 10 },
      ),
      queries: fc.array(fc.record({ who, capability: fc.constantFrom(...EXERCISED), at: group }), {
        minLength: QUERIES_PER_RUN,
        maxLength: QUERIES_PER_RUN,
      }),
    });
  });

/** Is `uid` `ancestor` or below it? */
const atOrBelow = (uid: string, ancestor: string): boolean =>
  uid === ancestor || uid.startsWith(`${ancestor}/`);

async function runScenario(s: Scenario): Promise<void> {
  api.emulator.reset();
  const org = api.emulator.orgUid;
  let serial = 0;
  const groups = [org];
  for (const [i, parent] of s.parents.entries())
    groups.push((await asOwner(`/iam/v2beta1/groups/${groups[parent]!}`, { name: `g${i}` })).uid);
  const customRoles: string[] = [];
  for (const [i, role] of s.customRoles.entries())
    customRoles.push(
      (
        await asOwner(`/iam/v2beta1/roles/${groups[role.at]!}`, {
          name: `custom${i}`,
          capabilities: role.capabilities,
        })
      ).uid,
    );
  const listedRoles = (await listAll("/iam/v2beta1/roles", "roles")) as { uid: string; name: string }[];
  const builtinUid = (name: string) => listedRoles.find((r) => r.name === name && !r.uid.includes("/"))!.uid;

  // Identities: root-level users, and a workload identity whose token comes from the exchange.
  const identities: { uid: string; token: string }[] = [];
  for (let i = 0; i < s.users; i++) identities.push(api.emulator.createUser(`user${i}`));
  const subject = `workload-${serial++}`;
  const workload = (
    await asOwner(`/iam/v2beta1/identities/${groups[s.workloadAt]!}`, {
      name: "workload",
      claimMatch: { issuer: `${api.emulator.url}/oidc`, subject },
    })
  ).uid as string;

  for (const b of s.bindings) {
    const at = groups[b.at]!;
    let roleUid: string;
    if (typeof b.role === "string") roleUid = builtinUid(b.role);
    else {
      roleUid = customRoles[b.role]!;
      // A custom role applies at its group and below: a binding elsewhere would be refused (not this property).
      if (!atOrBelow(at, parentOf(roleUid)!)) continue;
    }
    const identityUid = b.who < s.users ? identities[b.who]!.uid : workload;
    const made = await api.post(`/iam/v2beta1/roleBindings/${at}`, { identityUid, roleUid });
    // The same binding twice is refused as a conflict; anything else must succeed.
    if (made.status !== 200) expect(made.body.code).toBe(6);
  }
  const idToken = await api.emulator.mintIdToken({ subject });
  const exchanged = await api.call(
    "GET",
    `/sts/exchange?aud=${enc(api.emulator.url)}&identity=${enc(workload)}`,
    { token: idToken },
  );
  // The exchange itself needs no binding (an identity with none gets a token that sees nothing).
  expect(exchanged.status).toBe(200);
  identities.push({ uid: workload, token: exchanged.body.token as string });

  api.emulator.seed({
    repos: groups.map((g, i) => ({
      name: `repo${i}`,
      group: g,
      tags: [{ name: `tag${i}`, digest: `sha256:${i}` }],
    })),
    advisories: groups.map((g, i) => ({ advisoryId: `CGA-${i}`, group: g })),
  });
  const registry = new Map<string, { repo: string; tag: string; advisory: string }>();
  for (const [i, g] of groups.entries()) {
    const repo = (await ok(api.get(`/registry/v2beta1/repos?name=repo${i}`), "repo")).repos[0].uid as string;
    const tag = (await ok(api.get(`/registry/v2beta1/tags?uidp.childrenOf=${enc(repo)}`), "tag")).tags[0].uid;
    const advisory = (await ok(api.get(`/vulnerabilities/v2beta1/advisories?advisoryIds=CGA-${i}`), "adv"))
      .advisories[0].uid;
    registry.set(g, { repo, tag, advisory });
  }

  const { model, roles, groups: listedGroups } = await modelFromApi();
  // The owner sees the whole tree it built: the model's groups are the API's.
  expect([...listedGroups].sort()).toEqual(expect.arrayContaining([...groups].sort()));
  const ctx: RunContext = {
    org,
    roles,
    builtin: (name) => roles.find((r) => r.name === name && !r.uid.includes("/"))!,
    registry,
    serial: () => serial++,
  };

  for (const q of s.queries) {
    const identity = identities[q.who]!;
    const group = q.capability.startsWith("CAP_IAM_IDENTITY_PROVIDERS") ? org : groups[q.at]!;
    const trial = await trialFor(ctx, q.capability, group);
    const needs = needsOf(trial.operation);
    // The trial exercises the capability it was chosen for, at the group it was chosen for (or below it).
    expect(needs.some((n) => n.capability === q.capability && atOrBelow(n.group, group))).toBe(true);
    const unmet = unmetNeeds(model, identity.uid, trial.operation);
    const response = await trial.send(identity.token);
    const counts = checkedCapabilities.get(q.capability) ?? { held: 0, refused403: 0, refused404: 0 };
    checkedCapabilities.set(q.capability, counts);
    checked++;
    const position = needs[0]!.group;
    const seen = sees(model, identity.uid, position);
    const summary = {
      capability: q.capability,
      group,
      position,
      identity: identity.uid,
      unmet: unmet.map((n) => n.capability),
      seen,
    };
    if (unmet.length === 0) {
      expect({ ...summary, status: response.status, text: response.text }).toEqual({
        ...summary,
        status: 200,
        text: expect.any(String),
      });
      counts.held++;
    } else {
      const expected = seen ? 403 : 404;
      expect({ ...summary, status: response.status }).toEqual({ ...summary, status: expected });
      if (expected === 403) {
        expect(response.text).toContain(unmet[0]!.capability);
        counts.refused403++;
      } else counts.refused404++;
    }
  }
}

describe("the model says held exactly when the emulator allows", () => {
  test(`${ACCESS_MODEL_RUNS} generated trees, ${QUERIES_PER_RUN} triples each`, async () => {
    await fc.assert(fc.asyncProperty(scenario, runScenario), {
      seed: 33,
      numRuns: ACCESS_MODEL_RUNS,
      endOnFailure: true,
    });
    expect(checked).toBe(ACCESS_MODEL_RUNS * QUERIES_PER_RUN);
    // Every exercised capability was checked both ways across the runs.
    for (const capability of EXERCISED) {
      const counts = checkedCapabilities.get(capability);
      expect({
        capability,
        allowed: (counts?.held ?? 0) > 0,
        refused: (counts?.refused403 ?? 0) + (counts?.refused404 ?? 0) > 0,
      }).toEqual({
        capability,
        allowed: true,
        refused: true,
      });
    }
  }, 240_000);
});
