"""A folder in the organization, a workload identity that GitHub Actions runs of one repository's main branch
assume, and a binding of the built-in registry.pull role to it on the folder. README.md says how to run it."""

import pulumi
import pulumi_platform_native as platform

config = pulumi.Config()
project = pulumi.get_project()
stack = pulumi.get_stack()

# The folder is named after the project and the stack, so each stack has its own (a group's name is lowercase
# letters, digits, space, '.', '_' and '-').
folder = platform.iam.Group(
    "folder",
    parent_uid=config.require("organization"),
    name=f"{project}-{stack}",
    description=f"Managed by the Pulumi project {project}, stack {stack}",
)

# GitHub's issuer is public: the subject pins one repository and its main branch, and the audience says which
# tokens are meant for this identity (the policy pack's identity-subject-pinned and identity-audience-required).
repository = config.require("githubRepository")
ci = platform.iam.Identity(
    "ci",
    parent_uid=folder.uid,
    name="github-actions",
    description=f"GitHub Actions runs of {repository} on main",
    claim_match=platform.iam.ClaimMatchArgs(
        issuer="https://token.actions.githubusercontent.com",
        subject=f"repo:{repository}:ref:refs/heads/main",
        audience=config.require("audience"),
    ),
)

# A built-in role, found by name; bound on the folder, never at the organization's root.
role = platform.iam.get_role_output(name="registry.pull")
binding = platform.iam.RoleBinding(
    "ci-pulls",
    group_uid=folder.uid,
    identity_uid=ci.uid,
    role_uid=role.uid,
)

pulumi.export("folderUid", folder.uid)
pulumi.export("identityUid", ci.uid)
pulumi.export("roleBindingUid", binding.uid)
