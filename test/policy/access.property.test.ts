/**
 * The pack's access rules (workload-identity-privileged, workload-identity-no-takeover) judge a stack the same at
 * preview, when no group, identity or role of the stack has a uid yet and the pack places them through the
 * program's references (policy/access.ts), as at `up`, when every uid is known. Random stacks of nested groups,
 * workload identities, custom and built-in roles and bindings, with hostile resource names ("/", "~", "%",
 * "__proto__"); fixed seed.
 */
import type { PolicyResource, StackValidationPolicy } from "@pulumi/policy";
// @ts-expect-error -- internal module of @pulumi/policy without typings: the engine's unknown sentinels
import { unknownCheckingProxy, unknownStringValue } from "@pulumi/policy/proxy";
import fc from "fast-check";
import { BUILTIN_ROLES } from "../../emulator/builtin-roles";
import { POLICIES } from "../../policy/rules";
import { resourceText } from "../../sdk/words";

const UNKNOWN_STRING: unknown = unknownStringValue;
const ORG = "0123456789abcdef0123456789abcdef01234567";
const CAPABILITIES = [
  "CAP_IAM_IDENTITY_LIST",
  "CAP_IAM_IDENTITY_UPDATE",
  "CAP_IAM_ROLE_BINDINGS_CREATE",
  "CAP_IAM_IDENTITY_CREATE",
  "CAP_IAM_GROUPS_LIST",
  "CAP_REPO_LIST",
];
const BUILTIN = ["owner", "viewer"].map((name) => BUILTIN_ROLES.find((r) => r.name === name)!.uid);
const RULES = ["workload-identity-privileged", "workload-identity-no-takeover"];

const hex16 = (n: number) => n.toString(16).padStart(16, "0");

interface Shape {
  groupNames: string[];
  identityNames: string[];
  groupParents: number[]; // -1: the organization
  identityParents: number[];
  roles: string[][];
  bindings: Array<{ identity: number; role: number; group: number }>; // role < 0: a built-in role
}

const name = fc.oneof(
  fc.string({ minLength: 1, maxLength: 6 }),
  fc.constantFrom("__proto__", "constructor", "a/b", "~x", "%2F", "toString"),
);

const shape: fc.Arbitrary<Shape> = fc
  .record({
    groupNames: fc.uniqueArray(name, { minLength: 1, maxLength: 4 }),
    identityNames: fc.uniqueArray(name, { minLength: 1, maxLength: 3 }),
    roles: fc.array(fc.subarray(CAPABILITIES), { minLength: 1, maxLength: 3 }),
  })
  .chain(({ groupNames, identityNames, roles }) => {
    const identities = identityNames.length;
    return fc.record({
      identityNames: fc.constant(identityNames),
      groupNames: fc.constant(groupNames),
      groupParents: fc.tuple(...groupNames.map((_, i) => fc.integer({ min: -1, max: i - 1 }))),
      identityParents: fc.array(fc.integer({ min: -1, max: groupNames.length - 1 }), {
        minLength: identities,
        maxLength: identities,
      }),
      roles: fc.constant(roles),
      bindings: fc.array(
        fc.record({
          identity: fc.integer({ min: 0, max: identities - 1 }),
          role: fc.integer({ min: -BUILTIN.length, max: roles.length - 1 }),
          group: fc.integer({ min: -1, max: groupNames.length - 1 }),
        }),
        { maxLength: 6 },
      ),
    });
  });

function resource(
  kind: string,
  resourceName: string,
  props: Record<string, unknown>,
  propertyDependencies: Record<string, PolicyResource[]>,
): PolicyResource {
  const type = `platform:iam:${kind}`;
  return {
    type,
    name: resourceName,
    urn: `urn:pulumi:dev::p::${type}::${resourceName}`,
    props: unknownCheckingProxy(props),
    opts: {} as PolicyResource["opts"],
    dependencies: Object.values(propertyDependencies).flat(),
    propertyDependencies,
    isType: () => false,
    asType: () => undefined,
  };
}

/** The stack as the pack sees it at preview (no uid known) or at `up`; and each group's uid. */
function stackOf(s: Shape, preview: boolean): { resources: PolicyResource[]; groupUids: string[] } {
  const groupUids: string[] = [];
  const groups: PolicyResource[] = [];
  s.groupNames.forEach((groupName, i) => {
    const parent = s.groupParents[i]!;
    const parentUid = parent < 0 ? ORG : groupUids[parent]!;
    groupUids.push(`${parentUid}/${hex16(i + 1)}`);
    groups.push(
      resource(
        "Group",
        groupName,
        {
          name: "g",
          parentUid: parent < 0 || !preview ? parentUid : UNKNOWN_STRING,
          uid: preview ? UNKNOWN_STRING : groupUids[i],
        },
        parent < 0 ? {} : { parentUid: [groups[parent]!] },
      ),
    );
  });
  /** A reference to a resource of the stack: its uid at `up`, unknown with a dependency at preview. */
  const ref = (uid: string, target: PolicyResource | undefined): [unknown, PolicyResource[] | undefined] =>
    target === undefined ? [uid, undefined] : [preview ? UNKNOWN_STRING : uid, [target]];
  const groupRef = (i: number) => (i < 0 ? ref(ORG, undefined) : ref(groupUids[i]!, groups[i]));
  const identities = s.identityParents.map((parent, j) => {
    const [parentUid, parentDeps] = groupRef(parent);
    const uid = `${parent < 0 ? ORG : groupUids[parent]}/${hex16(100 + j)}`;
    return {
      uid,
      resource: resource(
        "Identity",
        s.identityNames[j]!,
        {
          name: "i",
          parentUid,
          uid: preview ? UNKNOWN_STRING : uid,
          claimMatch: { issuer: "https://issuer.example", subject: `s${j}` },
        },
        parentDeps === undefined ? {} : { parentUid: parentDeps },
      ),
    };
  });
  const roles = s.roles.map((capabilities, k) => {
    const uid = `${ORG}/${hex16(200 + k)}`;
    return {
      uid,
      resource: resource(
        "Role",
        `role-${k}`,
        { name: "r", parentUid: ORG, capabilities, uid: preview ? UNKNOWN_STRING : uid },
        {},
      ),
    };
  });
  const bindings = s.bindings.map((b, n) => {
    const identity = identities[b.identity]!;
    const role = b.role < 0 ? undefined : roles[b.role]!;
    const [identityUid, identityDeps] = ref(identity.uid, identity.resource);
    const [roleUid, roleDeps] =
      role === undefined ? ref(BUILTIN[-b.role - 1]!, undefined) : ref(role.uid, role.resource);
    const [groupUid, groupDeps] = groupRef(b.group);
    const deps: Record<string, PolicyResource[]> = {};
    if (identityDeps !== undefined) deps.identityUid = identityDeps;
    if (roleDeps !== undefined) deps.roleUid = roleDeps;
    if (groupDeps !== undefined) deps.groupUid = groupDeps;
    return resource("RoleBinding", `binding-${n}`, { identityUid, roleUid, groupUid }, deps);
  });
  return {
    resources: [
      ...groups,
      ...identities.map((i) => i.resource),
      ...roles.map((r) => r.resource),
      ...bindings,
    ],
    groupUids,
  };
}

function lines(resources: PolicyResource[]): string[] {
  const found: string[] = [];
  for (const ruleName of RULES) {
    const rule = POLICIES.find((p) => p.name === ruleName) as StackValidationPolicy;
    const validate = rule.validateStack as (args: unknown, report: (m: string, urn?: string) => void) => void;
    validate({ resources, getConfig: () => ({}) }, (message, urn) => found.push(`${urn} ${message}`));
  }
  return found.sort();
}

test("preview and up give the same lines, groups named by resource at preview and by uid at up", () => {
  let judged = 0;
  let takeovers = 0;
  fc.assert(
    fc.property(shape, (s) => {
      const preview = lines(stackOf(s, true).resources);
      const { resources, groupUids } = stackOf(s, false);
      // At up a group is named by its uid; put its preview name in its place (longest uid first: a child's uid
      // begins with its parent's).
      const byLength = groupUids.map((uid, i) => [uid, i] as const).sort((a, b) => b[0].length - a[0].length);
      const up = lines(resources)
        .map((line) =>
          byLength.reduce(
            (text, [uid, i]) => text.split(`group ${uid}`).join(resourceText("Group", s.groupNames[i]!)),
            line,
          ),
        )
        .sort();
      expect(preview).toEqual(up);
      if (up.length > 0) judged++;
      if (up.some((l) => l.includes("[workload-identity-no-takeover]"))) takeovers++;
    }),
    { seed: 20261126, numRuns: 300 },
  );
  // The generator reaches both rules' findings, not only empty answers.
  expect(judged).toBeGreaterThan(100);
  expect(takeovers).toBeGreaterThan(10);
});
