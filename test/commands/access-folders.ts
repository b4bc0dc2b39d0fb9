/**
 * The organization the access page is judged at, of `folders` folders (3,000 objects for 1,000): each folder with
 * its CI identity bound there, and people at the top. Written once as a plan, made two ways: through the API as the
 * organization's owner (`makeFolderOrg`: the in-process emulator makes 3,000 objects in seconds), or straight into
 * an emulator data file (`folderOrgDataFile`: 30,000 objects, which the API would take minutes to make).
 *
 * The plan: folders `team-1` ... `team-N`, made in an order that is neither their names' nor their uids', the last
 * five under `team-3` (so one binding covers groups below it). Each `ci-<n>` lives in `team-<n>` and is bound there
 * to the custom role `deployer`; `ci-7`, `ci-70` and `ci-700` are also bound to `ci-admin`, which is privileged;
 * `ci-1` to `ci-3` have exchanged a token (the others are unused: never seen). People: the owner `demo-user` (bound
 * by the emulator), `alice` (viewer) and `bob` (editor), on the organization.
 */
import { randomBytes } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { startEmulator, type Emulator, type StoredObject } from "../../emulator";

export interface FolderOrg {
  org: string;
  /** Folder n is `folders[n - 1]`. */
  folders: { uid: string; name: string; parent: string }[];
  /** `ci-<n>` is `cis[n - 1]`. */
  cis: { uid: string; name: string; folder: string }[];
  people: { uid: string; name: string }[];
  roles: { deployer: string; ciAdmin: string };
  /** Every binding of the plan (not the owner's, which the emulator makes). */
  bindings: { uid: string; identity: string; role: string; group: string }[];
}

export const DEPLOYER_CAPABILITIES = ["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST", "CAP_TAG_LIST"];
export const CI_ADMIN_CAPABILITIES = ["CAP_IAM_GROUPS_LIST", "CAP_IAM_ROLE_BINDINGS_CREATE"];
/** Folder numbers whose CI is also bound to ci-admin, and whose CI has exchanged a token. */
export const PRIVILEGED_CI = [7, 70, 700];
export const USED_CI = [1, 2, 3];
/** The people bound on the organization besides its owner, and their built-in roles. */
const PEOPLE = [
  { name: "alice", role: "viewer" },
  { name: "bob", role: "editor" },
];

/** Folder numbers in the order they are made: a stride coprime with the count, so not by name. */
function creationOrder(folders: number): number[] {
  const stride = [7919, 104729, 1299709].find((p) => folders % p !== 0)!;
  return Array.from({ length: folders }, (_, i) => ((i * stride) % folders) + 1);
}
/** Folder n's parent folder number (0: the organization). */
const parentOf = (n: number, folders: number) => (folders > 10 && n > folders - 5 ? 3 : 0);

/** Runs `task` over 0..n-1, `width` at a time (the bench makes its organizations with it too). */
export async function pool<T>(n: number, width: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out = new Array<T>(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await task(i);
      }
    }),
  );
  return out;
}

async function roleUid(emulator: Emulator, name: string): Promise<string> {
  const roles = await emulator.client.roles.list({ descendantsOf: emulator.orgUid, pageSize: 200 });
  return roles.items.find((r) => r.name === name)!.uid;
}

/** The plan made through the API. */
export async function makeFolderOrg(emulator: Emulator, folders: number): Promise<FolderOrg> {
  const client = emulator.client;
  const org = emulator.orgUid;
  const roles = {
    deployer: (await client.roles.create(org, { name: "deployer", capabilities: DEPLOYER_CAPABILITIES })).uid,
    ciAdmin: (await client.roles.create(org, { name: "ci-admin", capabilities: CI_ADMIN_CAPABILITIES })).uid,
  };
  const made = new Map<number, { uid: string; name: string; parent: string }>();
  const order = creationOrder(folders);
  // Parents before children: the folders at the top first, then those under team-3.
  for (const nested of [false, true])
    await pool(folders, 8, async (i) => {
      const n = order[i]!;
      if ((parentOf(n, folders) !== 0) !== nested) return;
      const parent = nested ? made.get(parentOf(n, folders))!.uid : org;
      const g = await client.groups.create(parent, { name: `team-${n}` });
      made.set(n, { uid: g.uid, name: g.name, parent });
    });
  const issuer = `${emulator.url}/oidc`;
  const cis = await pool(folders, 8, async (i) => {
    const folder = made.get(i + 1)!.uid;
    const name = `ci-${i + 1}`;
    const ci = await client.identities.create(folder, { name, claimMatch: { issuer, subject: name } });
    return { uid: ci.uid, name, folder };
  });
  const people = [{ uid: emulator.userUid, name: "demo-user" }];
  const plan: { identity: string; role: string; group: string }[] = [];
  for (const p of PEOPLE) {
    const user = emulator.createUser(p.name);
    people.push({ uid: user.uid, name: p.name });
    plan.push({ identity: user.uid, role: await roleUid(emulator, p.role), group: org });
  }
  plan.push(...cis.map((ci) => ({ identity: ci.uid, role: roles.deployer, group: ci.folder })));
  for (const n of PRIVILEGED_CI.filter((n) => n <= folders))
    plan.push({ identity: cis[n - 1]!.uid, role: roles.ciAdmin, group: cis[n - 1]!.folder });
  const bindings = await pool(plan.length, 8, async (i) => {
    const b = plan[i]!;
    return {
      uid: (await client.roleBindings.create(b.group, { identityUid: b.identity, roleUid: b.role })).uid,
      ...b,
    };
  });
  for (const n of USED_CI.filter((n) => n <= folders)) {
    const idToken = await emulator.mintIdToken({ subject: `ci-${n}` });
    const query = `aud=${encodeURIComponent(emulator.url)}&identity=${encodeURIComponent(cis[n - 1]!.uid)}`;
    const exchanged = await fetch(`${emulator.url}/sts/exchange?${query}`, {
      headers: { authorization: `Bearer ${idToken}` },
    });
    if (exchanged.status !== 200) throw new Error(`token exchange for ci-${n}: ${exchanged.status}`);
  }
  const byNumber = [...made.entries()].sort(([a], [b]) => a - b).map(([, f]) => f);
  return { org, folders: byNumber, cis, people, roles, bindings };
}

/**
 * The plan written into a new emulator data file `file`: what the API makes once (roles, people, folder 1 with its
 * CI and binding) is made through it, and every other folder, CI and binding is a copy of folder 1's stored objects
 * with its own uid, name and times. `platform-emulator --data FILE` then serves the organization.
 */
export async function folderOrgDataFile(file: string, folders: number): Promise<FolderOrg> {
  rmSync(file, { force: true });
  rmSync(`${file}.journal`, { force: true });
  const emulator = await startEmulator({ dataFile: file });
  const one = await makeFolderOrg(emulator, 1);
  await emulator.close();
  const snapshot = JSON.parse(readFileSync(file, "utf8")) as {
    objects: Record<"groups" | "identities" | "roleBindings", StoredObject[]>;
  };
  const find = (kind: "groups" | "identities" | "roleBindings", uid: string) =>
    snapshot.objects[kind].find((o) => o.uid === uid)!;
  const templates = {
    folder: find("groups", one.folders[0]!.uid),
    ci: find("identities", one.cis[0]!.uid),
    binding: find("roleBindings", one.bindings.find((b) => b.identity === one.cis[0]!.uid)!.uid),
  };
  const child = (parent: string) => `${parent}/${randomBytes(8).toString("hex")}`;
  const copy = (template: StoredObject, uid: string, parent: string, fields: Record<string, unknown>) => ({
    ...structuredClone(template),
    uid,
    parent,
    fields: { ...structuredClone(template.fields), ...fields },
  });
  const org = one.org;
  const folderList: FolderOrg["folders"] = [one.folders[0]!];
  for (let n = 2; n <= folders; n++) {
    const parent = parentOf(n, folders) === 0 ? org : folderList[parentOf(n, folders) - 1]!.uid;
    folderList.push({ uid: child(parent), name: `team-${n}`, parent });
  }
  const cis: FolderOrg["cis"] = [one.cis[0]!];
  const bindings = [...one.bindings];
  const shuffled = creationOrder(folders).map((n) => folderList[n - 1]!);
  for (const f of shuffled.filter((f) => f.uid !== one.folders[0]!.uid))
    snapshot.objects.groups.push(copy(templates.folder, f.uid, f.parent, { name: f.name }));
  for (let n = 2; n <= folders; n++) {
    const folder = folderList[n - 1]!.uid;
    const ci = { uid: child(folder), name: `ci-${n}`, folder };
    const claimMatch = { ...(templates.ci.fields.claimMatch as object), subject: ci.name };
    const seen = USED_CI.includes(n) ? {} : { lastSeenTime: undefined };
    snapshot.objects.identities.push(
      copy(templates.ci, ci.uid, folder, { name: ci.name, claimMatch, ...seen }),
    );
    cis.push(ci);
    const roles = [one.roles.deployer, ...(PRIVILEGED_CI.includes(n) ? [one.roles.ciAdmin] : [])];
    for (const role of roles) {
      const binding = { uid: child(folder), identity: ci.uid, role, group: folder };
      snapshot.objects.roleBindings.push(
        copy(templates.binding, binding.uid, folder, { identityUid: ci.uid, roleUid: role }),
      );
      bindings.push(binding);
    }
  }
  writeFileSync(file, JSON.stringify(snapshot));
  rmSync(`${file}.journal`, { force: true });
  return { org, folders: folderList, cis, people: one.people, roles: one.roles, bindings };
}
