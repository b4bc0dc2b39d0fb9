// A folder in the organization, a workload identity that GitHub Actions runs of one repository's main branch
// assume, and a binding of the built-in registry.pull role to it on the folder. README.md says how to run it.
package main

import (
	"fmt"

	"github.com/pulumi-platform/native-sdks/go/platform/iam"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		project, stack := ctx.Project(), ctx.Stack()

		// The folder is named after the project and the stack, so each stack has its own (a group's name is
		// lowercase letters, digits, space, '.', '_' and '-').
		folder, err := iam.NewGroup(ctx, "folder", &iam.GroupArgs{
			ParentUid:   pulumi.String(config.Require(ctx, "organization")),
			Name:        pulumi.String(project + "-" + stack),
			Description: pulumi.String(fmt.Sprintf("Managed by the Pulumi project %s, stack %s", project, stack)),
		})
		if err != nil {
			return err
		}

		// GitHub's issuer is public: the subject pins one repository and its main branch, and the audience says
		// which tokens are meant for this identity (the policy pack's identity-subject-pinned and
		// identity-audience-required).
		repository := config.Require(ctx, "githubRepository")
		ci, err := iam.NewIdentity(ctx, "ci", &iam.IdentityArgs{
			ParentUid:   folder.Uid,
			Name:        pulumi.String("github-actions"),
			Description: pulumi.String("GitHub Actions runs of " + repository + " on main"),
			ClaimMatch: &iam.ClaimMatchArgs{
				Issuer:   pulumi.String("https://token.actions.githubusercontent.com"),
				Subject:  pulumi.String("repo:" + repository + ":ref:refs/heads/main"),
				Audience: pulumi.String(config.Require(ctx, "audience")),
			},
		})
		if err != nil {
			return err
		}

		// A built-in role, found by name; bound on the folder, never at the organization's root.
		role := iam.LookupRoleOutput(ctx, iam.LookupRoleOutputArgs{Name: pulumi.String("registry.pull")})
		binding, err := iam.NewRoleBinding(ctx, "ci-pulls", &iam.RoleBindingArgs{
			GroupUid:    folder.Uid,
			IdentityUid: ci.Uid,
			RoleUid:     role.Uid(),
		})
		if err != nil {
			return err
		}

		ctx.Export("folderUid", folder.Uid)
		ctx.Export("identityUid", ci.Uid)
		ctx.Export("roleBindingUid", binding.Uid)
		return nil
	})
}
