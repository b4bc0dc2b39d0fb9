// A Go program on the native provider plugin, through the generated Go SDK in native-sdks/go (go.mod
// replaces the module with that directory): a folder under the organization, a team group inside it, a CI workload
// identity, a role binding giving the identity the built-in viewer role on the team, and the complete list of who
// holds which role on the folder (GroupAccess).
//
// It needs the plugin pulumi-resource-platform installed (`pulumi plugin install resource platform <version>
// --file <tarball>`) and our engine, whose Go language host builds and runs it:
//
//	scripts/pulumi-env.sh pulumi -C examples/go stack init dev
//	scripts/pulumi-env.sh pulumi -C examples/go config set organization <org uid>
//	scripts/pulumi-env.sh pulumi -C examples/go config set platform:apiUrl https://...
//	scripts/pulumi-env.sh pulumi -C examples/go config set --secret platform:token ...
//	scripts/pulumi-env.sh pulumi -C examples/go up
package main

import (
	"github.com/pulumi-platform/native-sdks/go/platform/iam"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		organization := config.Require(ctx, "organization")

		folder, err := iam.NewGroup(ctx, "engineering", &iam.GroupArgs{
			ParentUid:   pulumi.String(organization),
			Name:        pulumi.String("engineering"),
			Description: pulumi.String("Product engineering"),
		})
		if err != nil {
			return err
		}
		team, err := iam.NewGroup(ctx, "team-a", &iam.GroupArgs{
			ParentUid:   folder.Uid,
			Name:        pulumi.String("team-a"),
			Description: pulumi.String("Team A"),
		})
		if err != nil {
			return err
		}
		// No audience: the service then accepts only tokens minted for itself. The project's policy pack
		// (docs/policy-pack.md) still reports it under identity-audience-required: set claimMatch.audience to the
		// audience your workflow requests to pass it.
		ci, err := iam.NewIdentity(ctx, "ci", &iam.IdentityArgs{
			ParentUid:   pulumi.String(organization),
			Name:        pulumi.String("github-actions-deployer"),
			Description: pulumi.String("CI deployments from the main branch"),
			ClaimMatch: &iam.ClaimMatchArgs{
				Issuer:  pulumi.String("https://token.actions.githubusercontent.com"),
				Subject: pulumi.String("repo:acme/app:ref:refs/heads/main"),
			},
		})
		if err != nil {
			return err
		}
		viewer := iam.LookupRoleOutput(ctx, iam.LookupRoleOutputArgs{Name: pulumi.String("viewer")})
		binding, err := iam.NewRoleBinding(ctx, "ci-views-team-a", &iam.RoleBindingArgs{
			GroupUid:    team.Uid,
			IdentityUid: ci.Uid,
			RoleUid:     viewer.Uid(),
		})
		if err != nil {
			return err
		}

		// Every binding directly on the folder, and nothing else: one added by hand is drift, and up removes it.
		_, err = iam.NewGroupAccess(ctx, "engineering-access", &iam.GroupAccessArgs{
			GroupUid: folder.Uid,
			Bindings: iam.GroupAccessBindingsItemArray{
				iam.GroupAccessBindingsItemArgs{IdentityUid: ci.Uid, RoleUid: viewer.Uid()},
			},
		})
		if err != nil {
			return err
		}

		ctx.Export("folderUid", folder.Uid)
		ctx.Export("teamUid", team.Uid)
		ctx.Export("ciIdentityUid", ci.Uid)
		ctx.Export("viewerRoleUid", viewer.Uid())
		ctx.Export("bindingUid", binding.Uid)
		return nil
	})
}
