/**
 * Each rule of the policy pack (policy/rules.ts) called directly, as the engine's analyzer calls it, with the
 * resource shapes of both fronts: the dynamic resources' type (`pulumi-nodejs:dynamic/iam:X`, props with
 * `__provider`) and the native plugin's (`platform:iam:X`). Props go through @pulumi/policy's own unknown-checking
 * proxy, so a value unknown during a preview is the engine's sentinel, as under the real engine.
 */
import type { PolicyResource, ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
// @ts-expect-error -- internal module of @pulumi/policy without typings: the engine's unknown sentinels
import { unknownCheckingProxy, unknownStringValue } from "@pulumi/policy/proxy";
import { POLICIES } from "../../policy/rules";
import { BUILTIN_ROLES } from "../../emulator/builtin-roles";
import { EMULATOR_OWNER_ROLE_UID } from "../../policy/resources";

const UNKNOWN_STRING: unknown = unknownStringValue;
const ORG = "0123456789abcdef0123456789abcdef01234567";
const FOLDER = `${ORG}/0123456789abcdef`;
const VIEWER = "1".repeat(40);
const VIEWER_BUILTIN = BUILTIN_ROLES.find((r) => r.name === "viewer")!.uid;

const FRONTS = [
  {
    front: "dynamic",
    type: (kind: string) => `pulumi-nodejs:dynamic/iam:${kind}`,
    extra: { __provider: "code" },
  },
  { front: "native", type: (kind: string) => `platform:iam:${kind}`, extra: {} },
];

function policy(name: string) {
  const found = POLICIES.find((p) => p.name === name);
  if (found === undefined) throw new Error(`no policy ${name}`);
  return found;
}

/** The lines a resource rule reports for one resource. */
function resourceViolations(
  name: string,
  type: string,
  props: Record<string, unknown>,
  config: Record<string, unknown> = {},
): string[] {
  const lines: string[] = [];
  const rule = policy(name) as ResourceValidationPolicy;
  const validate = rule.validateResource as (args: unknown, report: (m: string) => void) => void;
  validate(
    {
      type,
      props: unknownCheckingProxy(props),
      urn: `urn:pulumi:dev::p::${type}::res`,
      name: "res",
      getConfig: () => config,
    },
    (message) => lines.push(message),
  );
  return lines;
}

function resource(
  type: string,
  name: string,
  props: Record<string, unknown>,
  propertyDependencies: Record<string, PolicyResource[]> = {},
): PolicyResource {
  const deps = Object.values(propertyDependencies).flat();
  return {
    type,
    name,
    urn: `urn:pulumi:dev::p::${type}::${name}`,
    props: unknownCheckingProxy(props),
    opts: {} as PolicyResource["opts"],
    dependencies: deps,
    propertyDependencies,
    isType: () => false,
    asType: () => undefined,
  };
}

function stackViolations(name: string, resources: PolicyResource[], config: Record<string, unknown> = {}) {
  const lines: Array<{ message: string; urn?: string }> = [];
  const rule = policy(name) as StackValidationPolicy;
  const validate = rule.validateStack as (args: unknown, report: (m: string, urn?: string) => void) => void;
  validate({ resources, getConfig: () => config }, (message, urn) => lines.push({ message, urn }));
  return lines;
}

const GITHUB = "https://token.actions.githubusercontent.com";

describe.each(FRONTS)("$front front", ({ type, extra }) => {
  const identity = (props: Record<string, unknown>) => ({ parentUid: ORG, name: "ci", ...extra, ...props });

  describe("identity-subject-pinned", () => {
    const check = (claimMatch: Record<string, unknown>, config = {}) =>
      resourceViolations("identity-subject-pinned", type("Identity"), identity({ claimMatch }), config);

    test("a subjectPattern matching every repository of an owner fails, with witnesses and a pinned subject", () => {
      const [line, ...more] = check({ issuer: GITHUB, subjectPattern: "repo:acme/.*", audience: "a" });
      expect(more).toEqual([]);
      expect(line).toMatch(
        /^\[identity-subject-pinned\] Identity "res": claimMatch\.subjectPattern 'repo:acme\/\.\*' matches the subjects of more than one repository of https:\/\/token\.actions\.githubusercontent\.com \(e\.g\. 'repo:acme\/[^']+' and 'repo:acme\/[^']+'\); pin the repository: subject 'repo:acme\/[^']+:ref:refs\/heads\/main'$/,
      );
    });

    test("no subject at all fails; an exact subject or a one-repository pattern passes", () => {
      expect(check({ issuer: GITHUB, subjectPattern: ".*" })).toHaveLength(1);
      expect(check({ issuer: GITHUB, subject: "repo:acme/app:ref:refs/heads/main" })).toEqual([]);
      expect(check({ issuer: GITHUB, subjectPattern: "repo:acme/app:ref:refs/heads/.*" })).toEqual([]);
      expect(check({ issuer: GITHUB, subjectPattern: "repo:acme/app:.*" })).toEqual([]);
    });

    test("each public issuer's subject shape decides what one project is", () => {
      expect(
        check({
          issuer: "https://gitlab.com",
          subjectPattern: "project_path:acme/.*:ref_type:branch:ref:main",
        }),
      ).toHaveLength(1);
      expect(check({ issuer: "https://gitlab.com", subjectPattern: "project_path:acme/app:.*" })).toEqual([]);
      expect(check({ issuer: "https://accounts.google.com", subjectPattern: "1234[0-9]" })).toHaveLength(1);
      expect(
        check({ issuer: "https://agent.buildkite.com", subjectPattern: "organization:acme:pipeline:.*" }),
      ).toHaveLength(1);
      expect(
        check({ issuer: "https://oidc.circleci.com/org/abc", subjectPattern: "org/abc/project/.*" }),
      ).toHaveLength(1);
    });

    test("an issuerPattern that admits a public issuer counts as trusting it; private issuers are not judged", () => {
      expect(
        check({ issuerPattern: "https://token\\.actions\\.githubusercontent\\.com", subjectPattern: ".*" }),
      ).toHaveLength(1);
      expect(check({ issuer: "https://idp.example.com", subjectPattern: ".*" })).toEqual([]);
      expect(
        check(
          { issuer: "https://idp.example.com", subjectPattern: ".*" },
          { publicIssuers: ["https://idp.example.com"] },
        ),
      ).toHaveLength(1);
    });

    test("a value unknown during the preview never fails the rule", () => {
      expect(check({ issuer: GITHUB, subjectPattern: UNKNOWN_STRING })).toEqual([]);
      expect(check({ issuer: UNKNOWN_STRING, subjectPattern: ".*" })).toEqual([]);
    });
  });

  describe("identity-issuer-pattern-single-host", () => {
    const check = (claimMatch: Record<string, unknown>) =>
      resourceViolations("identity-issuer-pattern-single-host", type("Identity"), identity({ claimMatch }));

    test("a pattern matching two hosts fails; one host (any path) passes", () => {
      const [line] = check({ issuerPattern: "https://[a-z]+\\.example\\.com", subject: "s" });
      expect(line).toMatch(
        /^\[identity-issuer-pattern-single-host\] Identity "res": claimMatch\.issuerPattern '.*' matches issuers on more than one host \(e\.g\. 'https:\/\/[^']+' and 'https:\/\/[^']+'\); set claimMatch\.issuer/,
      );
      expect(check({ issuerPattern: "https://idp\\.example\\.com(/tenant/[0-9]+)?", subject: "s" })).toEqual(
        [],
      );
      expect(check({ issuerPattern: "https://idp.example.com", subject: "s" })).toHaveLength(1); // unescaped dots
      expect(check({ issuerPattern: UNKNOWN_STRING, subject: "s" })).toEqual([]);
    });
  });

  describe("identity-audience-required", () => {
    const check = (claimMatch: Record<string, unknown>) =>
      resourceViolations("identity-audience-required", type("Identity"), identity({ claimMatch }));

    test("a public issuer without audience fails; an audience, its pattern, or a private issuer passes", () => {
      const [line] = check({ issuer: GITHUB, subject: "repo:a/b:x" });
      expect(line).toMatch(
        /^\[identity-audience-required\] Identity "res": claimMatch has no audience.*set claimMatch\.audience/,
      );
      expect(check({ issuer: GITHUB, subject: "repo:a/b:x", audience: "platform" })).toEqual([]);
      expect(check({ issuer: GITHUB, subject: "repo:a/b:x", audiencePattern: "platform" })).toEqual([]);
      expect(check({ issuer: "https://idp.example.com", subject: "s" })).toEqual([]);
      expect(check({ issuer: GITHUB, subject: "repo:a/b:x", audience: UNKNOWN_STRING })).toEqual([]);
    });
  });

  describe("static-keys-max-lifetime", () => {
    const keys = (days: number | unknown) => ({
      issuer: "https://k",
      subject: "s",
      issuerKeys: "{}",
      expirationTime:
        typeof days === "number" ? new Date(Date.now() + days * 86_400_000).toISOString() : days,
    });
    const check = (days: number | unknown, config = {}) =>
      resourceViolations(
        "static-keys-max-lifetime",
        type("Identity"),
        identity({ staticKeys: keys(days) }),
        config,
      );

    test("keys valid beyond the configured days fail (default 90)", () => {
      expect(check(120)[0]).toMatch(
        /^\[static-keys-max-lifetime\] Identity "res": staticKeys\.expirationTime '.*' is 120 days away, more than 90; set it on or before \d{4}-\d\d-\d\d/,
      );
      expect(check(60)).toEqual([]);
      expect(check(60, { maxDays: 30 })).toHaveLength(1);
      expect(check(UNKNOWN_STRING)).toEqual([]);
    });
  });

  describe("group-invite-bounded", () => {
    const check = (props: Record<string, unknown>, config = {}) =>
      resourceViolations(
        "group-invite-bounded",
        type("GroupInvite"),
        { groupUid: FOLDER, ...extra, ...props },
        config,
      );

    test("no email, a long ttl or expirationTime, and the owner role each give a line", () => {
      const lines = check({ roleUid: EMULATOR_OWNER_ROLE_UID, ttl: "30d" });
      expect(lines).toEqual([
        expect.stringMatching(/^\[group-invite-bounded\] GroupInvite "res": email is not set/),
        expect.stringMatching(/ttl '30d' is longer than 7 days; set ttl to at most '168h'$/),
        expect.stringMatching(
          /roleUid '579233b2c479241523cba5e3af55d0f50f2d6414' is the built-in owner role/,
        ),
      ]);
      const expiration = new Date(Date.now() + 10 * 86_400_000).toISOString();
      expect(check({ roleUid: VIEWER, email: "a@b.c", expirationTime: expiration })).toEqual([
        expect.stringMatching(/expirationTime '.*' is more than 7 days away/),
      ]);
    });

    test("a bounded invite for one address passes; maxDays and ownerRoleUids are configurable", () => {
      expect(check({ roleUid: VIEWER, email: "a@b.c", ttl: "72h" })).toEqual([]);
      expect(check({ roleUid: VIEWER, email: "a@b.c", ttl: "72h" }, { maxDays: 1 })).toHaveLength(1);
      expect(
        check({ roleUid: VIEWER, email: "a@b.c", ttl: "72h" }, { ownerRoleUids: [VIEWER] }),
      ).toHaveLength(1);
      expect(check({ roleUid: UNKNOWN_STRING, email: UNKNOWN_STRING, ttl: UNKNOWN_STRING })).toEqual([]);
    });
  });

  describe("identity-provider-default-role-not-owner", () => {
    const check = (defaultRole: unknown) =>
      resourceViolations("identity-provider-default-role-not-owner", type("IdentityProvider"), {
        ...extra,
        defaultRole,
      });

    test("owner as the default role fails; viewer or an unknown role passes", () => {
      expect(check(EMULATOR_OWNER_ROLE_UID)).toEqual([
        expect.stringMatching(
          /^\[identity-provider-default-role-not-owner\] IdentityProvider "res": defaultRole '.*' is the built-in owner role/,
        ),
      ]);
      expect(check(VIEWER)).toEqual([]);
      expect(check(UNKNOWN_STRING)).toEqual([]);
    });
  });

  describe("stack rules", () => {
    const ci = resource(type("Identity"), "ci", identity({ uid: UNKNOWN_STRING }));
    const org = resource(type("Group"), "org", { ...extra, name: "org", uid: UNKNOWN_STRING });
    const folder = resource(type("Group"), "folder", {
      ...extra,
      parentUid: ORG,
      name: "f",
      uid: UNKNOWN_STRING,
    });
    const escalator = resource(type("Role"), "escalator", {
      ...extra,
      capabilities: ["CAP_IAM_ROLE_BINDINGS_CREATE", "CAP_IAM_ROLES_CREATE"],
      uid: UNKNOWN_STRING,
    });
    const binding = (name: string, props: Record<string, unknown>, deps: Record<string, PolicyResource[]>) =>
      resource(
        type("RoleBinding"),
        name,
        { ...extra, identityUid: UNKNOWN_STRING, ...props },
        { identityUid: [ci], ...deps },
      );

    test("owner bound to a workload identity at an organization root fails, found through dependencies", () => {
      const atRoot = binding("b", { groupUid: ORG, roleUid: EMULATOR_OWNER_ROLE_UID }, {});
      const atNewOrg = binding(
        "c",
        { groupUid: UNKNOWN_STRING, roleUid: EMULATOR_OWNER_ROLE_UID },
        { groupUid: [org] },
      );
      const inFolder = binding(
        "d",
        { groupUid: UNKNOWN_STRING, roleUid: EMULATOR_OWNER_ROLE_UID },
        { groupUid: [folder] },
      );
      const viewer = binding("e", { groupUid: ORG, roleUid: VIEWER }, {});
      const lines = stackViolations("workload-identity-not-owner-at-root", [
        ci,
        org,
        folder,
        atRoot,
        atNewOrg,
        inFolder,
        viewer,
      ]);
      expect(lines.map((l) => l.urn)).toEqual([atRoot.urn, atNewOrg.urn]);
      expect(lines[0]?.message).toMatch(
        /^\[workload-identity-not-owner-at-root\] RoleBinding "b": roleUid is the built-in owner role, bound to workload Identity "ci" at the organization root/,
      );
    });

    test("a custom role that grants and writes roles, bound to a workload identity, fails", () => {
      const bound = binding("b", { groupUid: FOLDER, roleUid: UNKNOWN_STRING }, { roleUid: [escalator] });
      const lines = stackViolations("workload-identity-no-self-granting-role", [ci, escalator, bound]);
      expect(lines).toEqual([
        {
          urn: bound.urn,
          message: expect.stringMatching(
            /^\[workload-identity-no-self-granting-role\] RoleBinding "b": roleUid is Role "escalator", whose capabilities CAP_IAM_ROLE_BINDINGS_CREATE and CAP_IAM_ROLES_CREATE let workload Identity "ci" grant itself any role; drop/,
          ),
        },
      ]);
      const reader = resource(type("Role"), "reader", {
        ...extra,
        capabilities: ["CAP_IAM_ROLE_BINDINGS_CREATE", "CAP_REPO_LIST"],
      });
      const fine = binding("c", { groupUid: FOLDER, roleUid: UNKNOWN_STRING }, { roleUid: [reader] });
      expect(stackViolations("workload-identity-no-self-granting-role", [ci, reader, fine])).toEqual([]);
      const unknownCaps = resource(type("Role"), "later", { ...extra, capabilities: UNKNOWN_STRING });
      const later = binding("d", { groupUid: FOLDER, roleUid: UNKNOWN_STRING }, { roleUid: [unknownCaps] });
      expect(stackViolations("workload-identity-no-self-granting-role", [ci, unknownCaps, later])).toEqual(
        [],
      );
    });

    test("access sets' bindings are read too: GroupAccess and IdentityAccess entries", () => {
      const groupAccess = resource(
        type("GroupAccess"),
        "org-access",
        {
          ...extra,
          groupUid: ORG,
          bindings: [{ identityUid: UNKNOWN_STRING, roleUid: EMULATOR_OWNER_ROLE_UID }],
        },
        { bindings: [ci] },
      );
      const identityAccess = resource(
        type("IdentityAccess"),
        "ci-access",
        {
          ...extra,
          identityUid: UNKNOWN_STRING,
          bindings: [
            { groupUid: FOLDER, roleUid: VIEWER },
            { groupUid: FOLDER, roleUid: UNKNOWN_STRING },
          ],
        },
        { identityUid: [ci], bindings: [escalator] },
      );
      const all = [ci, escalator, groupAccess, identityAccess];
      expect(stackViolations("workload-identity-not-owner-at-root", all)).toEqual([
        {
          urn: groupAccess.urn,
          message: expect.stringMatching(
            /^\[workload-identity-not-owner-at-root\] GroupAccess "org-access": bindings\[0\]\.roleUid is the built-in owner role, bound to workload Identity "ci"/,
          ),
        },
      ]);
      expect(stackViolations("workload-identity-no-self-granting-role", all)).toEqual([
        {
          urn: identityAccess.urn,
          message: expect.stringMatching(
            /IdentityAccess "ci-access": bindings\[1\]\.roleUid is Role "escalator"/,
          ),
        },
      ]);
      expect(stackViolations("identity-unused", all)).toEqual([]);
    });

    describe("escalation, through the access model over the stack's bindings", () => {
      const claimMatch = { issuer: GITHUB, subject: "repo:acme/app:ref:refs/heads/main", audience: "a" };
      const workload = (name: string, props: Record<string, unknown> = {}) =>
        resource(type("Identity"), name, identity({ name, uid: UNKNOWN_STRING, claimMatch, ...props }));
      const role = (name: string, capabilities: unknown) =>
        resource(type("Role"), name, { ...extra, parentUid: ORG, name, capabilities, uid: UNKNOWN_STRING });
      const bind = (
        name: string,
        who: PolicyResource,
        roleUid: string | PolicyResource,
        groupUid: string | PolicyResource,
      ) =>
        resource(
          type("RoleBinding"),
          name,
          {
            ...extra,
            identityUid: UNKNOWN_STRING,
            roleUid: typeof roleUid === "string" ? roleUid : UNKNOWN_STRING,
            groupUid: typeof groupUid === "string" ? groupUid : UNKNOWN_STRING,
          },
          {
            identityUid: [who],
            ...(typeof roleUid === "string" ? {} : { roleUid: [roleUid] }),
            ...(typeof groupUid === "string" ? {} : { groupUid: [groupUid] }),
          },
        );
      const privileged = (resources: PolicyResource[], config = {}) =>
        stackViolations("workload-identity-privileged", resources, config);
      const takeover = (resources: PolicyResource[], config = {}) =>
        stackViolations("workload-identity-no-takeover", resources, config);

      test("a workload holding privileged capabilities is flagged, naming them, the group, the role and the binding", () => {
        const deployer = workload("deployer");
        const admin = role("admin", [
          "CAP_IAM_ROLE_BINDINGS_CREATE",
          "CAP_IAM_ROLES_CREATE",
          "CAP_REPO_LIST",
        ]);
        const bound = bind("deployer-admin", deployer, admin, FOLDER);
        const owns = bind("deployer-owner", deployer, EMULATOR_OWNER_ROLE_UID, folder);
        const views = bind("deployer-viewer", deployer, VIEWER_BUILTIN, ORG);
        const lines = privileged([deployer, admin, folder, bound, owns, views]);
        expect(lines.map((l) => l.urn)).toEqual([bound.urn, owns.urn]);
        expect(lines[0]?.message).toBe(
          `[workload-identity-privileged] RoleBinding "deployer-admin": roleUid gives workload Identity "deployer" the privileged capabilities CAP_IAM_ROLES_CREATE, CAP_IAM_ROLE_BINDINGS_CREATE on group ${FOLDER} (through Role "admin"), with which whoever presents its token grants access; bind a role without them, or keep this rule advisory for a stack whose workload manages access on purpose`,
        );
        expect(lines[1]?.message).toMatch(
          /RoleBinding "deployer-owner": roleUid gives workload Identity "deployer" the privileged capabilities CAP_IAM_GROUP_INVITES_CREATE, .* on Group "folder" \(through built-in role owner\)/,
        );
        expect(policy("workload-identity-privileged").enforcementLevel).toBe("advisory");
      });

      test("access sets' entries count as bindings, named by their index", () => {
        const deployer = workload("deployer");
        const groupAccess = resource(
          type("GroupAccess"),
          "folder-access",
          {
            ...extra,
            groupUid: FOLDER,
            bindings: [
              { identityUid: UNKNOWN_STRING, roleUid: VIEWER_BUILTIN },
              { identityUid: UNKNOWN_STRING, roleUid: EMULATOR_OWNER_ROLE_UID },
            ],
          },
          { bindings: [deployer] },
        );
        expect(privileged([deployer, groupAccess])).toEqual([
          {
            urn: groupAccess.urn,
            message: expect.stringMatching(
              /^\[workload-identity-privileged\] GroupAccess "folder-access": bindings\[1\]\.roleUid gives workload Identity "deployer" the privileged capabilities CAP_IAM_GROUP_INVITES_CREATE, /,
            ),
          },
        ]);
      });

      test("a service principal is not a workload identity; an unknown role is said once, not guessed", () => {
        const service = resource(
          type("Identity"),
          "svc",
          identity({ name: "svc", uid: UNKNOWN_STRING, servicePrincipal: "COSIGNED" }),
        );
        const deployer = workload("deployer");
        const mystery = "f".repeat(40);
        const resources = [
          service,
          deployer,
          bind("svc-owner", service, EMULATOR_OWNER_ROLE_UID, ORG),
          bind("a", deployer, mystery, ORG),
          bind("b", deployer, mystery, FOLDER),
        ];
        expect(privileged(resources)).toEqual([
          {
            urn: resources[3]!.urn,
            message: `[workload-identity-privileged] RoleBinding "a": roleUid '${mystery}' is neither a custom Role of this stack nor a built-in role the pack can name, so its capabilities are unknown and the access rules skip RoleBinding "a" roleUid, RoleBinding "b" roleUid; if it is the built-in owner role, add it to ownerRoleUids`,
          },
        ]);
        // Configured as owner, the same uid is known: the bindings grant owner's capabilities.
        expect(privileged(resources, { ownerRoleUids: [mystery] }).map((l) => l.urn)).toEqual([
          resources[3]!.urn,
          resources[4]!.urn,
        ]);
        // A role whose capabilities are not known yet (preview) is neither flagged nor reported as unknown.
        const later = role("later", UNKNOWN_STRING);
        expect(privileged([deployer, later, bind("c", deployer, later, ORG)])).toEqual([]);
      });

      test("a workload that can update an identity stronger than itself is a takeover; out of reach it is not", () => {
        const ops = workload("ops");
        const ci = workload("ci");
        const identityAdmin = role("identity-admin", ["CAP_IAM_IDENTITY_LIST", "CAP_IAM_IDENTITY_UPDATE"]);
        const opsAtOrg = bind("ops-identities", ops, identityAdmin, ORG);
        const ciOwner = bind("ci-owner", ci, EMULATOR_OWNER_ROLE_UID, folder);
        const lines = takeover([ops, ci, identityAdmin, folder, opsAtOrg, ciOwner]);
        expect(lines).toEqual([
          {
            urn: opsAtOrg.urn,
            message: expect.stringMatching(
              new RegExp(
                `^\\[workload-identity-no-takeover\\] RoleBinding "ops-identities": roleUid gives workload Identity "ops" CAP_IAM_IDENTITY_UPDATE on group ${ORG}, where Identity "ci" lives: it can rewrite who may assume it and act as it, gaining CAP_ADVISORIES_LIST, .* and \\d+ more on Group "folder" \\(RoleBinding "ci-owner" roleUid\\), which it lacks there; bind Identity "ops" a role without CAP_IAM_IDENTITY_UPDATE`,
              ),
            ),
          },
        ]);
        // The same role on the folder: the identities live in the organization, out of its reach.
        const opsInFolder = bind("ops-identities", ops, identityAdmin, FOLDER);
        expect(takeover([ops, ci, identityAdmin, folder, opsInFolder, ciOwner])).toEqual([]);
        // Updating needs reading too: without CAP_IAM_IDENTITY_LIST the identity is not even visible.
        const blind = role("blind", ["CAP_IAM_IDENTITY_UPDATE"]);
        expect(takeover([ops, ci, blind, folder, bind("o", ops, blind, ORG), ciOwner])).toEqual([]);
        // A target holding nothing the workload lacks is no escalation.
        const ciViews = bind("ci-views", ci, VIEWER_BUILTIN, FOLDER);
        const viewerToo = bind("ops-views", ops, VIEWER_BUILTIN, ORG);
        expect(takeover([ops, ci, identityAdmin, folder, opsAtOrg, ciViews, viewerToo])).toEqual([]);
        expect(policy("workload-identity-no-takeover").enforcementLevel).toBe("mandatory");
      });

      test("an identity provider whose default role the workload lacks is a takeover target too", () => {
        const ops = workload("ops");
        const idpAdmin = role("idp-admin", [
          "CAP_IAM_IDENTITY_PROVIDERS_LIST",
          "CAP_IAM_IDENTITY_PROVIDERS_UPDATE",
        ]);
        const sso = resource(type("IdentityProvider"), "sso", {
          ...extra,
          parentUid: ORG,
          name: "sso",
          defaultRole: VIEWER_BUILTIN,
        });
        const lines = takeover([ops, idpAdmin, sso, bind("ops-idp", ops, idpAdmin, ORG)]);
        expect(lines.map((l) => l.message)).toEqual([
          expect.stringMatching(
            /RoleBinding "ops-idp": roleUid gives workload Identity "ops" CAP_IAM_IDENTITY_PROVIDERS_UPDATE on group .*, where IdentityProvider "sso" lives: it can rewrite whose sign-ins it accepts and act as it, gaining CAP_ADVISORIES_LIST, .* \(IdentityProvider "sso" defaultRole\)/,
          ),
        ]);
      });

      test("groups not created yet are placed under their parents, so access held above reaches them", () => {
        const ops = workload("ops");
        const ci = workload("ci", { parentUid: UNKNOWN_STRING });
        const team = resource(
          type("Group"),
          "team",
          { ...extra, parentUid: UNKNOWN_STRING, name: "team", uid: UNKNOWN_STRING },
          { parentUid: [folder] },
        );
        const ciWithDeps = resource(
          ci.type,
          ci.name,
          identity({ name: "ci", uid: UNKNOWN_STRING, claimMatch, parentUid: UNKNOWN_STRING }),
          {
            parentUid: [team],
          },
        );
        const identityAdmin = role("identity-admin", ["CAP_IAM_IDENTITY_LIST", "CAP_IAM_IDENTITY_UPDATE"]);
        const lines = takeover([
          ops,
          ciWithDeps,
          folder,
          team,
          identityAdmin,
          bind("ops-identities", ops, identityAdmin, folder),
          bind("ci-owner", ciWithDeps, EMULATOR_OWNER_ROLE_UID, team),
        ]);
        expect(lines.map((l) => l.message)).toEqual([
          expect.stringMatching(
            /RoleBinding "ops-identities": .* on Group "team", where Identity "ci" lives: .* on Group "team" \(RoleBinding "ci-owner" roleUid\)/,
          ),
        ]);
      });
    });

    test("an identity no binding uses is reported (advisory); one used by dependency or by uid is not", () => {
      const orphan = resource(type("Identity"), "orphan", identity({ uid: "x/1" }));
      const byUid = resource(type("Identity"), "by-uid", identity({ uid: `${ORG}/00000000000000aa` }));
      const used = binding("b", { groupUid: FOLDER, roleUid: VIEWER }, {});
      const literal = resource(type("RoleBinding"), "lit", {
        ...extra,
        groupUid: FOLDER,
        identityUid: `${ORG}/00000000000000aa`,
        roleUid: VIEWER,
      });
      const notYetCreated = resource(type("Identity"), "new", identity({ uid: UNKNOWN_STRING }));
      const lines = stackViolations("identity-unused", [ci, orphan, byUid, notYetCreated, used, literal]);
      expect(lines).toEqual([
        {
          urn: orphan.urn,
          message:
            '[identity-unused] Identity "orphan": no role binding in this stack uses it; bind a role to it (RoleBinding identityUid) or remove it',
        },
        { urn: notYetCreated.urn, message: expect.stringMatching(/^\[identity-unused\] Identity "new": /) },
      ]);
      expect(policy("identity-unused").enforcementLevel).toBe("advisory");
    });
  });
});

test("every rule has a name, a description, a default enforcement level and a config schema", () => {
  expect(POLICIES.map((p) => p.name)).toEqual([
    "identity-subject-pinned",
    "identity-issuer-pattern-single-host",
    "identity-audience-required",
    "workload-identity-not-owner-at-root",
    "workload-identity-no-self-granting-role",
    "workload-identity-no-takeover",
    "workload-identity-privileged",
    "static-keys-max-lifetime",
    "group-invite-bounded",
    "identity-provider-default-role-not-owner",
    "identity-unused",
    "access-plan",
  ]);
  for (const p of POLICIES) {
    expect(p.description.length).toBeGreaterThan(20);
    expect(["mandatory", "advisory"]).toContain(p.enforcementLevel);
    expect(p.configSchema).toBeDefined();
  }
});

test("resources of other packages are not judged", () => {
  expect(
    resourceViolations("identity-subject-pinned", "aws:iam/role:Role", { claimMatch: { issuer: GITHUB } }),
  ).toEqual([]);
});
