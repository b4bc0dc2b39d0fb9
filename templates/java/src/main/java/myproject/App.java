// A folder in the organization, a workload identity that GitHub Actions runs of one repository's main branch
// assume, and a binding of the built-in registry.pull role to it on the folder. README.md says how to run it.
package myproject;

import com.pulumi.Context;
import com.pulumi.Pulumi;
import com.pulumiplatform.platform.iam.Group;
import com.pulumiplatform.platform.iam.GroupArgs;
import com.pulumiplatform.platform.iam.IamFunctions;
import com.pulumiplatform.platform.iam.Identity;
import com.pulumiplatform.platform.iam.IdentityArgs;
import com.pulumiplatform.platform.iam.RoleBinding;
import com.pulumiplatform.platform.iam.RoleBindingArgs;
import com.pulumiplatform.platform.iam.inputs.ClaimMatchArgs;
import com.pulumiplatform.platform.iam.inputs.GetRoleArgs;
import com.pulumiplatform.platform.iam.outputs.GetRoleResult;

public class App {
    public static void main(String[] args) {
        Pulumi.run(App::stack);
    }

    private static void stack(Context ctx) {
        var config = ctx.config();
        var project = ctx.projectName();
        var stack = ctx.stackName();

        // The folder is named after the project and the stack, so each stack has its own (a group's name is
        // lowercase letters, digits, space, '.', '_' and '-').
        var folder = new Group("folder", GroupArgs.builder()
            .parentUid(config.require("organization"))
            .name(project + "-" + stack)
            .description("Managed by the Pulumi project " + project + ", stack " + stack)
            .build());

        // GitHub's issuer is public: the subject pins one repository and its main branch, and the audience says
        // which tokens are meant for this identity (the policy pack's identity-subject-pinned and
        // identity-audience-required).
        var repository = config.require("githubRepository");
        var ci = new Identity("ci", IdentityArgs.builder()
            .parentUid(folder.uid())
            .name("github-actions")
            .description("GitHub Actions runs of " + repository + " on main")
            .claimMatch(ClaimMatchArgs.builder()
                .issuer("https://token.actions.githubusercontent.com")
                .subject("repo:" + repository + ":ref:refs/heads/main")
                .audience(config.require("audience"))
                .build())
            .build());

        // A built-in role, found by name; bound on the folder, never at the organization's root.
        var role = IamFunctions.getRole(GetRoleArgs.builder().name("registry.pull").build());
        var binding = new RoleBinding("ci-pulls", RoleBindingArgs.builder()
            .groupUid(folder.uid())
            .identityUid(ci.uid())
            .roleUid(role.applyValue(GetRoleResult::uid))
            .build());

        ctx.export("folderUid", folder.uid());
        ctx.export("identityUid", ci.uid());
        ctx.export("roleBindingUid", binding.uid());
    }
}
