"""A Python program on the native provider plugin, through the generated Python SDK in native-sdks/python: what
the quick start (examples/quickstart) does. Two folders under the organization, a team group inside one, a CI
workload identity, a custom role, bindings (the custom role on a folder, the built-in viewer role, found by name
with a data source, on the team), and the complete list of who holds which role on the operations folder
(GroupAccess: a binding added there by hand shows as drift in `pulumi refresh`, and `pulumi up` removes it).

It needs the plugin pulumi-resource-platform installed (`pulumi plugin install resource platform <version> --file
<tarball>`), a virtual environment with requirements.txt and the SDK's wheel (`bash scripts/python-env.sh --sdk`
makes one and prints its directory), and our engine, whose Python language host runs it in that environment:

    export VIRTUAL_ENV=$(bash scripts/python-env.sh --sdk | tail -1)
    scripts/pulumi-env.sh pulumi -C examples/python stack init dev
    scripts/pulumi-env.sh pulumi -C examples/python config set organization <org uid>
    scripts/pulumi-env.sh pulumi -C examples/python config set platform:apiUrl https://...
    scripts/pulumi-env.sh pulumi -C examples/python config set --secret platform:token ...
    scripts/pulumi-env.sh pulumi -C examples/python up
"""

import pulumi
import pulumi_platform_native as platform

config = pulumi.Config()
organization = config.require("organization")

# Two folders under the organization, and a team inside the first.
engineering = platform.iam.Group(
    "engineering",
    parent_uid=organization,
    name="engineering",
    description="Product engineering",
)
operations = platform.iam.Group(
    "operations",
    parent_uid=organization,
    name="operations",
    description="Operations and on-call",
)
team = platform.iam.Group(
    "team-a",
    parent_uid=engineering.uid,
    name="team-a",
    description="Team A",
)

# A workload identity that GitHub Actions runs of the main branch can assume through token exchange.
# No audience: the service then accepts only tokens minted for itself. The project's policy pack
# (docs/policy-pack.md) still reports it under identity-audience-required: set claimMatch.audience to the
# audience your workflow requests to pass it.
ci = platform.iam.Identity(
    "ci",
    parent_uid=organization,
    name="github-actions-deployer",
    description="CI deployments from the main branch",
    claim_match=platform.iam.ClaimMatchArgs(
        issuer="https://token.actions.githubusercontent.com",
        subject="repo:acme/app:ref:refs/heads/main",
    ),
)

# A custom role with just what a deployment needs.
deployer = platform.iam.Role(
    "deployer",
    parent_uid=organization,
    name="deployer",
    description="Reads repos and groups; used by CI",
    capabilities=["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST", "CAP_TAG_LIST"],
)

# The built-in viewer role, found by name.
viewer = platform.iam.get_role_output(name="viewer")

ci_deploys_engineering = platform.iam.RoleBinding(
    "ci-deploys-engineering",
    group_uid=engineering.uid,
    identity_uid=ci.uid,
    role_uid=deployer.uid,
)
ci_views_team_a = platform.iam.RoleBinding(
    "ci-views-team-a",
    group_uid=team.uid,
    identity_uid=ci.uid,
    role_uid=viewer.uid,
)

# Every binding on the operations folder, and nothing else.
operations_access = platform.iam.GroupAccess(
    "operations-access",
    group_uid=operations.uid,
    bindings=[platform.iam.GroupAccessBindingsItemArgs(identity_uid=ci.uid, role_uid=viewer.uid)],
)

pulumi.export("engineeringUid", engineering.uid)
pulumi.export("operationsUid", operations.uid)
pulumi.export("teamUid", team.uid)
pulumi.export("ciIdentityUid", ci.uid)
pulumi.export("deployerRoleUid", deployer.uid)
pulumi.export("viewerRoleUid", viewer.uid)
pulumi.export("bindings", [ci_deploys_engineering.uid, ci_views_team_a.uid])
