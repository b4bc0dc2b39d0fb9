// Quick start: lay out an organization's folders, give a CI workload an identity, define a custom role,
// bind it (and the built-in viewer role), and read the organization's repos and advisories.
//
// Run from the repository root with `npm run demo`, or by hand against any Platform API:
//   pulumi config set organization <org uid>
//   pulumi config set platform:apiUrl https://...   (or PLATFORM_API_URL)
//   pulumi config set --secret platform:token ...   (or PLATFORM_TOKEN, or a workload identity)
//   pulumi up
import * as pulumi from "@pulumi/pulumi";
import * as platform from "pulumi-platform";

const config = new pulumi.Config();
const organization = config.require("organization");

// Two folders under the organization.
const engineering = new platform.iam.Group("engineering", {
  parentUid: organization,
  name: "engineering",
  description: "Product engineering",
});
const operations = new platform.iam.Group("operations", {
  parentUid: organization,
  name: "operations",
  description: "Operations and on-call",
});

// A workload identity that GitHub Actions runs of the main branch can assume through token exchange.
// No audience: the service then accepts only tokens minted for itself. The project's policy pack
// (docs/policy-pack.md) still reports it under identity-audience-required: set claimMatch.audience to the
// audience your workflow requests to pass it.
const ci = new platform.iam.Identity("ci", {
  parentUid: organization,
  name: "github-actions-deployer",
  description: "CI deployments from the main branch",
  claimMatch: {
    issuer: "https://token.actions.githubusercontent.com",
    subject: "repo:acme/app:ref:refs/heads/main",
  },
});

// A custom role with just what a deployment needs.
const deployer = new platform.iam.Role("deployer", {
  parentUid: organization,
  name: "deployer",
  description: "Reads repos and groups; used by CI",
  capabilities: ["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST", "CAP_TAG_LIST"],
});

// The built-in viewer role, found by name.
const viewer = platform.iam.getRoleOutput({ name: "viewer" });

const ciDeploysEngineering = new platform.iam.RoleBinding("ci-deploys-engineering", {
  groupUid: engineering.uid,
  identityUid: ci.uid,
  roleUid: deployer.uid,
});
const ciViewsOperations = new platform.iam.RoleBinding("ci-views-operations", {
  groupUid: operations.uid,
  identityUid: ci.uid,
  roleUid: viewer.uid,
});

// What the organization's registry and advisories hold, for other stacks to consume.
const repos = platform.registry.getReposOutput({ organizationUid: organization, orderBy: "name" });
const advisories = platform.vulnerabilities.getAdvisoriesOutput({ descendantsOf: organization });

// Who can do what, and why: the capabilities CI holds on engineering, each with the role that grants it. Asked
// through the binding's own outputs, so it is read once the binding exists.
const ciOnEngineering = platform.iam.getEffectiveAccessOutput({
  group: ciDeploysEngineering.groupUid,
  identity: ciDeploysEngineering.identityUid,
});

export const engineeringUid = engineering.uid;
export const operationsUid = operations.uid;
export const ciIdentityUid = ci.uid;
export const deployerRoleUid = deployer.uid;
export const viewerRoleUid = viewer.uid;
export const bindings = [ciDeploysEngineering.uid, ciViewsOperations.uid];
export const repoNames = repos.repos.apply((rs) => rs.map((r) => r.name));
export const advisoryIds = advisories.advisories.apply((as) => as.map((a) => a.advisoryId).sort());
export const ciAccessOnEngineering = ciOnEngineering.apply((access) =>
  (access.capabilities ?? []).map((c) => `${c.capability} via ${c.grants.map((g) => g.roleName).join(", ")}`),
);
