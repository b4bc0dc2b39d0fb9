/**
 * The v1 lists take every filter field that the official Go SDK's v1 list requests define (chainguard.dev/sdk
 * v0.1.141, the version the Terraform provider pins: the `*Filter` messages of proto/platform/iam/v1 and
 * proto/platform/registry/v1, put on the query string by their grpc-gateway handlers), with the meaning the v2 lists
 * give them; a parameter those messages do not have is refused, never ignored. The v1 API is not in the OpenAPI: the
 * real clients are its documentation, and emulator/README.md's table names each filter with the file it comes from.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BUILTIN_ROLES } from "../../emulator";
import { V1_LISTS } from "../../emulator/routes/v1";
import { details, enc, type Api, startInOrg } from "./helpers";

let api: Api;
let org: string;
/** The tree: org > a > b, with objects of every v1 kind at several levels. */
const w = {} as {
  a: string;
  b: string;
  identities: Record<"org" | "a" | "b", string>;
  roles: Record<"org" | "a", string>;
  bindings: Record<"a" | "b", string>;
  idps: Record<"org" | "org2", string>;
  org2: string;
  invites: Record<"a" | "b", { uid: string; keyId: string }>;
  association: string;
  repos: Record<"org" | "a", string>;
};

const ISSUER = "https://issuer.example";
/** UIDPFilter (proto/platform/common/v1/uidp.platform.proto), under `uidp.` on every list that has it. */
const UIDP = ["uidp.ancestorsOf", "uidp.descendantsOf", "uidp.childrenOf", "uidp.inRoot", "uidp.ids"];

beforeAll(async () => {
  ({ api, org } = await startInOrg());
  const post = async (path: string, body: unknown) => {
    const r = await api.post(path, body);
    expect([path, r.status, r.text]).toEqual([path, 200, r.text]);
    return r.body as { uid: string; keyId?: string };
  };
  w.a = (await post(`/iam/v2beta1/groups/${org}`, { name: "a" })).uid;
  w.b = (await post(`/iam/v2beta1/groups/${w.a}`, { name: "b" })).uid;
  const identity = async (parent: string, name: string) =>
    (await post(`/iam/v2beta1/identities/${parent}`, { name, claimMatch: { issuer: ISSUER, subject: name } }))
      .uid;
  w.identities = {
    org: await identity(org, "i-org"),
    a: await identity(w.a, "i-a"),
    b: await identity(w.b, "i-b"),
  };
  const role = async (parent: string, name: string) =>
    (await post(`/iam/v2beta1/roles/${parent}`, { name, capabilities: ["CAP_REPO_LIST"] })).uid;
  w.roles = { org: await role(org, "r-org"), a: await role(w.a, "r-a") };
  w.bindings = {
    a: (await post(`/iam/v2beta1/roleBindings/${w.a}`, { identityUid: w.identities.a, roleUid: w.roles.org }))
      .uid,
    b: (await post(`/iam/v2beta1/roleBindings/${w.b}`, { identityUid: w.identities.b, roleUid: w.roles.a }))
      .uid,
  };
  const idp = async (parent: string, name: string) =>
    (
      await post(`/iam/v2beta1/identityProviders/${parent}`, {
        name,
        defaultRole: BUILTIN_ROLES.find((r) => r.name === "viewer")!.uid,
        oidc: { issuer: "https://login.example", clientId: "c", clientSecret: "s" },
      })
    ).uid;
  // Identity providers live on organizations only: a second one, which the caller creates and so owns.
  w.org2 = (await post("/iam/v2beta1/groups", { name: "org-two" })).uid;
  w.idps = { org: await idp(org, "sso-org"), org2: await idp(w.org2, "sso-a") };
  const invite = async (parent: string) => {
    const made = await post(`/iam/v2beta1/groupInvites/${parent}`, { roleUid: w.roles.org, ttl: "3600s" });
    expect(made.keyId).toEqual(expect.any(String));
    return { uid: made.uid, keyId: made.keyId! };
  };
  w.invites = { a: await invite(w.a), b: await invite(w.b) };
  w.association = (
    await post(`/iam/v2beta1/accountAssociations/${w.a}`, {
      name: "aws",
      amazon: { account: "123456789012" },
    })
  ).uid;
  await api.emulator.seed({ repos: [{ name: "repo-org" }, { name: "repo-a", group: w.a }] });
  const repos = (await api.get("/registry/v2beta1/repos")).body.repos as { uid: string; name: string }[];
  w.repos = {
    org: repos.find((r) => r.name === "repo-org")!.uid,
    a: repos.find((r) => r.name === "repo-a")!.uid,
  };
}, 60_000);
afterAll(() => api.emulator.close());

const ids = async (path: string): Promise<string[]> => {
  const r = await api.get(path);
  expect([path, r.status, r.status === 200 ? "" : r.text]).toEqual([path, 200, ""]);
  return (r.body.items as { id: string }[]).map((i) => i.id).sort();
};
const sorted = (...uids: string[]) => [...uids].sort();
const builtins = BUILTIN_ROLES.map((r) => r.uid);

describe("the filters of the SDK's v1 Filter messages, per list", () => {
  test("every list takes exactly its message's fields (grpc-gateway: dotted paths, repeated fields repeated)", () => {
    expect(Object.fromEntries(V1_LISTS.map((l) => [l.path, Object.keys(l.params).sort()]))).toEqual({
      "/iam/v1/groups": ["id", "name", ...UIDP].sort(),
      "/iam/v1/identities": ["id", ...UIDP].sort(),
      "/iam/v1/roles": ["id", "name", "parent", ...UIDP].sort(),
      "/iam/v1/rolebindings": ["id", ...UIDP].sort(),
      "/iam/v1/identityProviders": ["id", "name", ...UIDP].sort(),
      "/iam/v1/group_invites": ["group", "id", "keyId"].sort(),
      "/iam/v1/account_associations": ["group", "name"].sort(),
      "/registry/v1/repos": ["id", "name", ...UIDP].sort(),
    });
  });

  test("uidp.ancestorsOf: the objects strictly above it, in either spelling", async () => {
    for (const spelled of ["uidp.ancestorsOf", "uidp.ancestors_of"]) {
      expect(await ids(`/iam/v1/groups?${spelled}=${enc(w.b)}`)).toEqual(sorted(org, w.a));
      expect(await ids(`/iam/v1/groups?${spelled}=${enc(w.a)}`)).toEqual([org]);
      expect(await ids(`/iam/v1/groups?${spelled}=${enc(org)}`)).toEqual([]);
      // An identity's uid is below its group's: the groups above the identity.
      expect(await ids(`/iam/v1/groups?${spelled}=${enc(w.identities.b)}`)).toEqual(sorted(org, w.a, w.b));
    }
    expect(await ids(`/iam/v1/identities?uidp.ancestorsOf=${enc(w.identities.b)}`)).toEqual([]);
  });

  test("uidp.inRoot: root-level objects only (organizations; the built-in roles)", async () => {
    for (const spelled of ["uidp.inRoot", "uidp.in_root"]) {
      expect(await ids(`/iam/v1/groups?${spelled}=true`)).toEqual(sorted(org, w.org2));
      expect(await ids(`/iam/v1/identities?${spelled}=true`)).not.toContain(w.identities.org);
      expect(await ids(`/iam/v1/roles?${spelled}=true`)).toEqual(sorted(...builtins));
      expect(await ids(`/iam/v1/rolebindings?${spelled}=true`)).toEqual([]);
    }
    // false (proto3's unset) filters nothing.
    expect(await ids(`/iam/v1/groups?uidp.inRoot=false`)).toEqual(await ids("/iam/v1/groups"));
  });

  test("uidp.ids: exactly these (repeated), and together with id both hold", async () => {
    expect(
      await ids(`/iam/v1/identities?uidp.ids=${enc(w.identities.a)}&uidp.ids=${enc(w.identities.b)}`),
    ).toEqual(sorted(w.identities.a, w.identities.b));
    expect(await ids(`/registry/v1/repos?uidp.ids=${enc(w.repos.a)}`)).toEqual([w.repos.a]);
    expect(
      await ids(
        `/iam/v1/roles?uidp.ids=${enc(w.roles.a)}&uidp.ids=${enc(builtins[0]!)}&id=${enc(w.roles.a)}`,
      ),
    ).toEqual([w.roles.a]);
  });

  test("uidp.descendantsOf and uidp.childrenOf scope every list that has them", async () => {
    expect(await ids(`/iam/v1/rolebindings?uidp.descendantsOf=${enc(w.a)}`)).toEqual(
      sorted(w.bindings.a, w.bindings.b),
    );
    expect(await ids(`/iam/v1/rolebindings?uidp.childrenOf=${enc(w.a)}`)).toEqual([w.bindings.a]);
    expect(await ids(`/iam/v1/identityProviders?uidp.childrenOf=${enc(org)}`)).toEqual([w.idps.org]);
    expect(await ids(`/registry/v1/repos?uidp.descendants_of=${enc(w.a)}`)).toEqual([w.repos.a]);
  });

  test("roles' parent: the roles of exactly that group, or / for the root-level (built-in) ones", async () => {
    expect(await ids(`/iam/v1/roles?parent=${enc(w.a)}`)).toEqual([w.roles.a]);
    expect(await ids(`/iam/v1/roles?parent=${enc(org)}`)).toEqual([w.roles.org]);
    expect(await ids(`/iam/v1/roles?parent=${enc(w.b)}`)).toEqual([]);
    expect(await ids(`/iam/v1/roles?parent=%2F`)).toEqual(sorted(...builtins));
    expect(await ids(`/iam/v1/roles?parent=%2F&name=viewer`)).toEqual([
      BUILTIN_ROLES.find((r) => r.name === "viewer")!.uid,
    ]);
  });

  test("group invites' keyId (either spelling) and group", async () => {
    for (const spelled of ["keyId", "key_id"])
      expect(await ids(`/iam/v1/group_invites?${spelled}=${enc(w.invites.b.keyId)}`)).toEqual([
        w.invites.b.uid,
      ]);
    expect(await ids(`/iam/v1/group_invites?keyId=nope`)).toEqual([]);
    expect(await ids(`/iam/v1/group_invites?group=${enc(w.a)}`)).toEqual([w.invites.a.uid]);
    expect(await ids(`/iam/v1/account_associations?group=${enc(w.a)}&name=aws`)).toEqual([w.association]);
  });

  // Hundreds of requests: on a loaded machine more than the default 5 s (the timeout after the body).
  test("every filter means what it means on the v2 list of the same objects", async () => {
    const V2: Record<string, [string, string]> = {
      "/iam/v1/groups": ["/iam/v2beta1/groups", "groups"],
      "/iam/v1/identities": ["/iam/v2beta1/identities", "identities"],
      "/iam/v1/roles": ["/iam/v2beta1/roles", "roles"],
      "/iam/v1/rolebindings": ["/iam/v2beta1/roleBindings", "roleBindings"],
      "/iam/v1/identityProviders": ["/iam/v2beta1/identityProviders", "identityProviders"],
      "/iam/v1/group_invites": ["/iam/v2beta1/groupInvites", "groupInvites"],
      "/iam/v1/account_associations": ["/iam/v2beta1/accountAssociations", "accountAssociations"],
      "/registry/v1/repos": ["/registry/v2beta1/repos", "repos"],
    };
    const every = [
      org,
      w.org2,
      w.a,
      w.b,
      ...Object.values(w.identities),
      ...Object.values(w.roles),
      ...Object.values(w.bindings),
      ...Object.values(w.idps),
      ...Object.values(w.invites).map((i) => i.uid),
      ...Object.values(w.repos),
      builtins[0]!,
    ];
    const names = ["a", "b", "i-a", "r-org", "viewer", "sso-a", "aws", "repo-a", "nothing"];
    /** The v2 query with the same meaning as the v1 filter `name=value`. */
    const v2Query = (path: string, name: string, value: string): string => {
      if (name === "id") return `uidp.ids=${enc(value)}`;
      if (name === "parent") return value === "/" ? "uidp.inRoot=true" : `uidp.childrenOf=${enc(value)}`;
      if (name === "group")
        return path === "/iam/v1/account_associations"
          ? `uidp.ids=${enc(value)}`
          : `uidp.childrenOf=${enc(value)}`;
      return `${name}=${enc(value)}`;
    };
    let nonEmpty = 0;
    for (const list of V1_LISTS) {
      const [v2Path, plural] = V2[list.path]!;
      for (const [name, rule] of Object.entries(list.params)) {
        const values =
          rule === "boolean"
            ? ["true", "false"]
            : name === "keyId"
              ? [w.invites.a.keyId, "none"]
              : name === "name"
                ? names
                : name === "parent"
                  ? ["/", ...every]
                  : every;
        for (const value of values) {
          const v1 = await ids(`${list.path}?${enc(name)}=${enc(value)}`);
          const v2 = await api.get(`${v2Path}?pageSize=1000&${v2Query(list.path, name, value)}`);
          expect([v2Path, v2.status]).toEqual([v2Path, 200]);
          const expected = (v2.body[plural] as { uid: string }[]).map((o) => o.uid).sort();
          expect([list.path, name, value, v1]).toEqual([list.path, name, value, expected]);
          if (v1.length > 0) nonEmpty += 1;
        }
      }
    }
    expect(nonEmpty).toBeGreaterThan(50);
  }, 60_000);
});

describe("what the v1 Filter messages do not have stays refused", () => {
  test.each([
    ["/iam/v1/identities", "group"],
    ["/iam/v1/identities", "name"],
    ["/iam/v1/groups", "parent"],
    ["/iam/v1/groups", "keyId"],
    ["/iam/v1/rolebindings", "group"],
    ["/iam/v1/group_invites", "uidp.childrenOf"],
    ["/iam/v1/account_associations", "id"],
    ["/registry/v1/repos", "uidp.bogus"],
    ["/iam/v1/roles", "pageSize"],
  ])("GET %s ?%s → 400 naming it", async (path, name) => {
    const r = await api.get(`${path}?${enc(name)}=${enc(org)}`);
    expect([name, r.status]).toEqual([name, 400]);
    expect(details(r.body).fieldViolations.map((v) => v.field)).toEqual([name]);
  });

  test.each([
    ["/iam/v1/groups", "uidp.inRoot", "maybe"],
    ["/iam/v1/roles", "parent", "not-a-group"],
    ["/iam/v1/roles", "parent", "/x"],
    ["/iam/v1/identities", "uidp.ancestorsOf", "nope"],
    ["/iam/v1/rolebindings", "uidp.ids", "nope"],
  ])("GET %s ?%s=%s (malformed) → 400 naming it", async (path, name, value) => {
    const r = await api.get(`${path}?${enc(name)}=${enc(value)}`);
    expect([name, value, r.status]).toEqual([name, value, 400]);
    expect(details(r.body).fieldViolations.map((v) => v.field)).toEqual([name]);
  });
});

describe("emulator/README.md's v1 table", () => {
  const readme = readFileSync(join(__dirname, "..", "..", "emulator", "README.md"), "utf8");
  const rows = readme
    .split("\n")
    .filter((l) => l.startsWith("| GET /iam/v1/") || l.startsWith("| GET /registry/v1/"))
    .map((l) => l.split("|").map((c) => c.trim()));

  test.each(V1_LISTS.flatMap((l) => Object.keys(l.params).map((p) => [l.path, p, l.source] as const)))(
    "GET %s ?%s is a row naming the SDK file it comes from",
    (path, name, source) => {
      const row = rows.find(([, op, param]) => op === `GET ${path}` && param === `\`${name}\``);
      expect([path, name, row !== undefined]).toEqual([path, name, true]);
      expect(row!.join("|")).toContain(source);
    },
  );
});
