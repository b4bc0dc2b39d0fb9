/**
 * The report over many stacks, as a property (fast-check, fixed seeds): random organizations (folders in a tree,
 * identities, custom roles, bindings, and bindings deleted by hand after a stack recorded them) and random sets of
 * stacks (of hostile names) over them, each holding objects of the organization (sometimes the same one twice),
 * GroupAccess resources (direct or subtree, the scope sometimes secret) and IdentityAccess resources, on either front,
 * some inputs secret. What the report says is managed (and by which resources), unmanaged, gone and in conflict
 * equals what a plain computation finds from the stacks' resources as generated and the organization read directly
 * from the emulator's store.
 */
import fc from "fast-check";
import { reportUnmanaged, type Report } from "../../commands/import/report";
import { IMPORT_KINDS } from "../../commands/kinds";
import { readState } from "../../commands/states";
import { useOrganization } from "../organization";
import { stateExport, type StateEntry } from "./fixtures";
import { secret } from "./stacks-fixtures";

jest.setTimeout(300_000);

type Front = "dynamic" | "native";
type Resource =
  | { what: "object"; pick: number; front: Front; secretInputs: boolean }
  | {
      what: "groupAccess";
      group: number;
      subtree: boolean;
      secretScope: boolean;
      front: Front;
      declared: { identity: number; role: number }[];
    }
  | { what: "identityAccess"; identity: number; front: Front; declared: { group: number; role: number }[] };

const front = fc.constantFrom<Front>("dynamic", "native");
const resource: fc.Arbitrary<Resource> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      what: fc.constant("object" as const),
      pick: fc.nat(),
      front,
      secretInputs: fc.boolean(),
    }),
  },
  fc.record({
    what: fc.constant("groupAccess" as const),
    group: fc.nat(),
    subtree: fc.boolean(),
    secretScope: fc.boolean(),
    front,
    declared: fc.array(fc.record({ identity: fc.nat(), role: fc.nat() }), { maxLength: 2 }),
  }),
  fc.record({
    what: fc.constant("identityAccess" as const),
    identity: fc.nat(),
    front,
    declared: fc.array(fc.record({ group: fc.nat(), role: fc.nat() }), { maxLength: 2 }),
  }),
);
const key = fc.record({ group: fc.nat(), identity: fc.nat(), role: fc.nat() });
const world = fc.record({
  groups: fc.array(fc.nat(), { maxLength: 6 }),
  identities: fc.array(fc.nat(), { minLength: 1, maxLength: 5 }),
  roles: fc.integer({ min: 0, max: 2 }),
  bindings: fc.array(key, { maxLength: 10 }),
  ghosts: fc.array(key, { maxLength: 2 }),
  projects: fc.uniqueArray(
    fc.constantFrom("__proto__", "constructor", "toString", "platform", "team-a", "valueOf", "a b"),
    { minLength: 1, maxLength: 4 },
  ),
  stacks: fc.array(fc.array(resource, { maxLength: 6 }), { minLength: 4, maxLength: 4 }),
});

interface Key {
  groupUid: string;
  identityUid: string;
  roleUid: string;
}

/** One resource of a generated stack, as the oracle sees it. */
interface Held {
  stack: string;
  urn: string;
  kind?: string;
  uid?: string;
  /** A role binding's key from its inputs (none when secret). */
  inputs?: Key;
  scope?: { group: string; subtree: boolean } | { identity: string };
  declared: Key[];
}

const under = (uid: string, ancestor: string) => uid === ancestor || uid.startsWith(`${ancestor}/`);
const covers = (scope: NonNullable<Held["scope"]>, k: Key) =>
  "identity" in scope
    ? k.identityUid === scope.identity
    : scope.subtree
      ? under(k.groupUid, scope.group)
      : k.groupUid === scope.group;

describe("the report over random stacks equals a plain computation (fast-check)", () => {
  const emulated = useOrganization();

  it("managed (and by what), unmanaged, gone and conflicts", async () => {
    await fc.assert(
      fc.asyncProperty(world, async (w) => {
        const { emulator } = emulated;
        emulator.reset();
        const c = emulator.client;
        const org = emulator.orgUid;
        // The organization.
        const groups: string[] = [];
        for (const parent of w.groups)
          groups.push(
            (
              await c.groups.create([org, ...groups][parent % (groups.length + 1)]!, {
                name: `g${groups.length}`,
              })
            ).uid,
          );
        const containers = [org, ...groups];
        const identities: string[] = [];
        for (const parent of w.identities)
          identities.push(
            (
              await c.identities.create(containers[parent % containers.length]!, {
                name: `i${identities.length}`,
                claimMatch: { issuer: "https://issuer.example", subject: `i${identities.length}` },
              })
            ).uid,
          );
        const roles = [emulated.role("viewer")];
        for (let r = 0; r < w.roles; r++)
          roles.push((await c.roles.create(org, { name: `r${r}`, capabilities: ["CAP_REPO_LIST"] })).uid);
        const keyOf = (k: { group: number; identity: number; role: number }): Key => ({
          groupUid: containers[k.group % containers.length]!,
          identityUid: identities[k.identity % identities.length]!,
          roleUid: roles[k.role % roles.length]!,
        });
        const seen = new Set<string>();
        const bind = async (k: Key) => {
          const text = `${k.groupUid} ${k.identityUid} ${k.roleUid}`;
          if (seen.has(text)) return undefined;
          seen.add(text);
          return (await c.roleBindings.create(k.groupUid, { identityUid: k.identityUid, roleUid: k.roleUid }))
            .uid;
        };
        const ghosts: { uid: string; key: Key }[] = [];
        for (const g of w.ghosts) {
          const uid = await bind(keyOf(g));
          if (uid !== undefined) ghosts.push({ uid, key: keyOf(g) });
        }
        for (const b of w.bindings) await bind(keyOf(b));
        for (const g of ghosts) await c.roleBindings.delete(g.uid);

        // The organization read directly.
        const store = emulator.snapshot();
        const inOrg = <T extends { uid: string }>(xs: T[]) => xs.filter((x) => x.uid.startsWith(`${org}/`));
        const live = new Map<string, { kind: string; key?: Key }>();
        for (const g of inOrg(store.groups)) live.set(g.uid, { kind: "group" });
        for (const i of inOrg(store.identities)) live.set(i.uid, { kind: "identity" });
        for (const r of inOrg(store.roles)) live.set(r.uid, { kind: "role" });
        for (const b of inOrg(store.roleBindings))
          live.set(b.uid, {
            kind: "roleBinding",
            key: {
              groupUid: b.parent,
              identityUid: String(b.fields["identityUid"]),
              roleUid: String(b.fields["roleUid"]),
            },
          });
        const pool: { kind: keyof typeof IMPORT_KINDS; uid: string; key?: Key }[] = [
          ...[...live].map(([uid, o]) => ({
            kind: o.kind as keyof typeof IMPORT_KINDS,
            uid,
            ...(o.key ? { key: o.key } : {}),
          })),
          ...ghosts.map((g) => ({ kind: "roleBinding" as const, uid: g.uid, key: g.key })),
        ];

        // The stacks, as generated, and as their exports.
        const held: Held[] = [];
        const states = w.projects.map((project, s) => {
          const stack = `organization/${project}/dev`;
          const entries: StateEntry[] = [];
          w.stacks[s]!.forEach((r, n) => {
            const name = `r${n}`;
            const typeToken = (token: string) =>
              r.front === "dynamic" ? `pulumi-nodejs:dynamic/iam:${token.split(":")[2]}` : token;
            const urn = (token: string) => `urn:pulumi:dev::${project}::${typeToken(token)}::${name}`;
            if (r.what === "object") {
              const o = pool[r.pick % pool.length]!;
              const token = IMPORT_KINDS[o.kind].token;
              const props =
                o.key === undefined ? {} : { ...o.key, ...(r.secretInputs ? { identityUid: secret() } : {}) };
              entries.push({ front: r.front, token, uid: o.uid, name, props });
              held.push({
                stack,
                urn: urn(token),
                kind: o.kind,
                uid: o.uid,
                ...(o.key !== undefined && !r.secretInputs ? { inputs: o.key } : {}),
                declared: [],
              });
            } else if (r.what === "groupAccess") {
              const group = containers[r.group % containers.length]!;
              const declared = r.declared.map((d) => ({ ...keyOf({ ...d, group: 0 }), groupUid: group }));
              entries.push({
                front: r.front,
                token: "platform:iam:GroupAccess",
                uid: r.subtree ? `${group}/**` : group,
                name,
                props: {
                  groupUid: group,
                  scope: r.secretScope ? secret() : r.subtree ? "subtree" : "group",
                  bindings: declared.map(({ identityUid, roleUid }) => ({ identityUid, roleUid })),
                },
              });
              held.push({
                stack,
                urn: urn("platform:iam:GroupAccess"),
                scope: { group, subtree: r.subtree },
                declared,
              });
            } else {
              const identity = identities[r.identity % identities.length]!;
              const declared = r.declared.map((d) => ({
                ...keyOf({ ...d, identity: 0 }),
                identityUid: identity,
              }));
              entries.push({
                front: r.front,
                token: "platform:iam:IdentityAccess",
                uid: identity,
                name,
                props: {
                  identityUid: identity,
                  bindings: declared.map(({ groupUid, roleUid }) => ({ groupUid, roleUid })),
                },
              });
              held.push({ stack, urn: urn("platform:iam:IdentityAccess"), scope: { identity }, declared });
            }
          });
          return { file: stack, contents: readState(JSON.stringify(stateExport(project, entries)), stack) };
        });

        // The plain computation.
        const objects = held.filter((h) => h.uid !== undefined);
        const scopes = held.filter((h) => h.scope !== undefined);
        const names = (hs: Held[]) => hs.map((h) => `${h.stack} ${h.urn}`).sort();
        const expectedManaged = new Map<string, string[]>();
        const expectedUnmanaged: string[] = [];
        for (const [uid, o] of live) {
          const by = [
            ...objects.filter((h) => h.uid === uid && h.kind === o.kind),
            ...(o.key ? scopes.filter((h) => covers(h.scope!, o.key!)) : []),
          ];
          if (by.length > 0) expectedManaged.set(uid, names(by));
          else expectedUnmanaged.push(uid);
        }
        const expectedMissing = objects.filter((h) => !live.has(h.uid!)).map((h) => `${h.uid} ${h.urn}`);
        const conflicts: string[] = [];
        const byObject = new Map<string, Held[]>();
        for (const h of objects)
          byObject.set(`${h.kind} ${h.uid}`, [...(byObject.get(`${h.kind} ${h.uid}`) ?? []), h]);
        for (const [k, hs] of byObject)
          if (hs.length > 1) conflicts.push(`duplicate ${k} ${names(hs).join(" ")}`);
        for (const h of objects.filter((x) => x.kind === "roleBinding")) {
          const k = live.get(h.uid!)?.key ?? h.inputs;
          const over = k === undefined ? [] : scopes.filter((s) => covers(s.scope!, k));
          if (over.length > 0)
            conflicts.push(`binding-in-scope ${h.stack} ${h.urn} ${names(over).join(" ")}`);
        }
        for (let i = 0; i < scopes.length; i++)
          for (let j = i + 1; j < scopes.length; j++) {
            const [a, b] = [scopes[i]!, scopes[j]!];
            const [sa, sb] = [a.scope!, b.scope!];
            let shared: boolean;
            if ("group" in sa && "group" in sb)
              shared =
                sa.group === sb.group ||
                (sa.subtree && under(sb.group, sa.group)) ||
                (sb.subtree && under(sa.group, sb.group));
            else if ("identity" in sa && "identity" in sb) shared = sa.identity === sb.identity;
            else {
              // A group and an identity fight when they declare different bindings where they meet.
              const meet = (ks: Key[]) =>
                [
                  ...new Set(ks.filter((k) => covers(sa, k) && covers(sb, k)).map((k) => JSON.stringify(k))),
                ].sort();
              shared = meet(a.declared).join() !== meet(b.declared).join();
            }
            if (shared) conflicts.push(`overlapping-scopes ${names([a, b]).join(" ")}`);
          }

        // The report.
        const { report } = await reportUnmanaged(c, org, states);
        const said = (x: Report["conflicts"][number]) => {
          const all = x.resources.map((m) => `${m.stack} ${m.urn}`);
          if (x.conflict === "duplicate") return `duplicate ${x.kind} ${x.uid} ${all.sort().join(" ")}`;
          if (x.conflict === "binding-in-scope")
            return `binding-in-scope ${all[0]} ${all.slice(1).sort().join(" ")}`;
          return `overlapping-scopes ${all.sort().join(" ")}`;
        };
        expect(report.unmanaged.map((u) => u.uid).sort()).toEqual(expectedUnmanaged.sort());
        expect(
          new Map(report.managed.map((m) => [m.uid, m.managedBy.map((b) => `${b.stack} ${b.urn}`).sort()])),
        ).toEqual(expectedManaged);
        expect(report.missing.map((m) => `${m.uid} ${m.urn}`).sort()).toEqual(expectedMissing.sort());
        expect(report.conflicts.map(said).sort()).toEqual(conflicts.sort());
        expect(report.unreadable).toEqual([]);
      }),
      { seed: 3905, numRuns: 60 },
    );
  });
});
