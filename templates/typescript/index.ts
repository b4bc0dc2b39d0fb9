// A folder in the organization, a workload identity that GitHub Actions runs of one repository's main branch
// assume, and a binding of the built-in registry.pull role to it on the folder. README.md says how to run it.
import * as pulumi from "@pulumi/pulumi";
import * as platform from "pulumi-platform-native";

const config = new pulumi.Config();

// The folder is named after the project and the stack, so each stack has its own (a group's name is lowercase
// letters, digits, space, '.', '_' and '-').
const folder = new platform.iam.Group("folder", {
  parentUid: config.require("organization"),
  name: `${pulumi.getProject()}-${pulumi.getStack()}`,
  description: `Managed by the Pulumi project ${pulumi.getProject()}, stack ${pulumi.getStack()}`,
});

// GitHub's issuer is public: the subject pins one repository and its main branch, and the audience says which
// tokens are meant for this identity (the policy pack's identity-subject-pinned and identity-audience-required).
const repository = config.require("githubRepository");
const ci = new platform.iam.Identity("ci", {
  parentUid: folder.uid,
  name: "github-actions",
  description: `GitHub Actions runs of ${repository} on main`,
  claimMatch: {
    issuer: "https://token.actions.githubusercontent.com",
    subject: `repo:${repository}:ref:refs/heads/main`,
    audience: config.require("audience"),
  },
});

// A built-in role, found by name; bound on the folder, never at the organization's root.
const role = platform.iam.getRoleOutput({ name: "registry.pull" });
const binding = new platform.iam.RoleBinding("ci-pulls", {
  groupUid: folder.uid,
  identityUid: ci.uid,
  roleUid: role.uid,
});

export const folderUid = folder.uid;
export const identityUid = ci.uid;
export const roleBindingUid = binding.uid;
