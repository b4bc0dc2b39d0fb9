// Unit tests of what every host shares: how a program's exit maps to the engine's answer, and the configuration
// variables every Pulumi SDK reads. Run: cd scripts/engine/langhost && GOSUMDB=off GOFLAGS=-mod=mod go test ./...
package host

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/constant"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

func TestTheBailExitCodeIsTheSDKs(t *testing.T) {
	if ExitCodeAfterUserActionableMessage != constant.ExitStatusLoggedError {
		t.Fatalf("ExitCodeAfterUserActionableMessage = %d, upstream's constant.ExitStatusLoggedError = %d",
			ExitCodeAfterUserActionableMessage, constant.ExitStatusLoggedError)
	}
}

func TestRunResponseBailsOnTheSDKsLoggedErrorExitCode(t *testing.T) {
	exit := func(code string) error { return exec.Command("sh", "-c", "exit "+code).Run() }

	if got := RunResponse(nil, "p"); got.GetError() != "" || got.GetBail() {
		t.Errorf("success: %v", got)
	}
	if got := RunResponse(exit("32"), "p"); !got.GetBail() || got.GetError() != "" {
		t.Errorf("exit 32 must be a bail without a message: %v", got)
	}
	if got := RunResponse(exit("3"), "p"); got.GetBail() || !strings.Contains(got.GetError(), "exit code: 3") {
		t.Errorf("exit 3: %v", got)
	}
	if got := RunResponse(exec.Command("/nonexistent/program").Run(), "/nonexistent/program"); got.GetBail() ||
		!strings.Contains(got.GetError(), "/nonexistent/program") {
		t.Errorf("a program that cannot start must be named in the error: %v", got)
	}
}

func TestConfigEnvironmentIsJSONEvenWhenEmpty(t *testing.T) {
	got, err := ConfigEnvironment(&pulumirpc.RunRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got["PULUMI_CONFIG"] != "{}" || got["PULUMI_CONFIG_SECRET_KEYS"] != "[]" {
		t.Errorf("empty configuration: %v", got)
	}
	got, err = ConfigEnvironment(&pulumirpc.RunRequest{
		Config: map[string]string{"p:k": "v"}, ConfigSecretKeys: []string{"p:k"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got["PULUMI_CONFIG"] != `{"p:k":"v"}` || got["PULUMI_CONFIG_SECRET_KEYS"] != `["p:k"]` {
		t.Errorf("configuration: %v", got)
	}
}

func TestEnvironmentReplacesInheritedValuesOnce(t *testing.T) {
	t.Setenv("PULUMI_STACK", "stale")
	env := Environment(map[string]string{"PULUMI_STACK": "dev"})
	var stacks []string
	for _, entry := range env {
		if value, ok := strings.CutPrefix(entry, "PULUMI_STACK="); ok {
			stacks = append(stacks, value)
		}
	}
	if !slices.Equal(stacks, []string{"dev"}) {
		t.Errorf("PULUMI_STACK values: %q", stacks)
	}
}
