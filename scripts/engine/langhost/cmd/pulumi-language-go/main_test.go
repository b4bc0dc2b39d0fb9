// Unit tests of how the host builds and runs a Go program (the contract with the Go SDK's pulumi.Run) and of the
// go.mod it writes beside a generated SDK. The host runs under the real engine in test/e2e/native-sdks.e2e.test.ts.
// Run: cd scripts/engine/langhost && GOSUMDB=off GOFLAGS=-mod=mod go test ./...
package main

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/blang/semver"
	codegen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"golang.org/x/mod/modfile"
	"google.golang.org/protobuf/types/known/structpb"
)

func envValues(env []string) map[string][]string {
	values := map[string][]string{}
	for _, entry := range env {
		name, value, _ := strings.Cut(entry, "=")
		values[name] = append(values[name], value)
	}
	return values
}

func TestProgramEnvironmentCarriesEveryVariableTheGoSDKReads(t *testing.T) {
	t.Setenv("PULUMI_STACK", "stale")
	req := &pulumirpc.RunRequest{
		MonitorAddress:   "127.0.0.1:1",
		Organization:     "org",
		Project:          "proj",
		Stack:            "dev",
		DryRun:           true,
		Parallel:         8,
		Config:           map[string]string{"platform:token": "t", "proj:name": "n"},
		ConfigSecretKeys: []string{"platform:token"},
		Info:             &pulumirpc.ProgramInfo{RootDirectory: "/work"},
	}

	env, err := programEnvironment(req, "127.0.0.1:2")
	if err != nil {
		t.Fatal(err)
	}

	values := envValues(env)
	want := map[string]string{
		"PULUMI_MONITOR": "127.0.0.1:1", "PULUMI_ENGINE": "127.0.0.1:2", "PULUMI_ORGANIZATION": "org",
		"PULUMI_PROJECT": "proj", "PULUMI_STACK": "dev", "PULUMI_ROOT_DIRECTORY": "/work", "PULUMI_DRY_RUN": "true",
		"PULUMI_PARALLEL": "8", "PULUMI_CONFIG_SECRET_KEYS": `["platform:token"]`,
	}
	for name, value := range want {
		if got := values[name]; !slices.Equal(got, []string{value}) {
			t.Errorf("%s = %q, want exactly %q", name, got, value)
		}
	}
	var config map[string]string
	if len(values["PULUMI_CONFIG"]) != 1 || json.Unmarshal([]byte(values["PULUMI_CONFIG"][0]), &config) != nil {
		t.Fatalf("want exactly one JSON PULUMI_CONFIG, got %q", values["PULUMI_CONFIG"])
	}
	if config["platform:token"] != "t" || config["proj:name"] != "n" || len(config) != 2 {
		t.Errorf("PULUMI_CONFIG = %v", config)
	}
}

func TestProgramEnvironmentWithoutConfigIsEmptyJSONAndAnUpdate(t *testing.T) {
	env, err := programEnvironment(&pulumirpc.RunRequest{}, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, entry := range []string{"PULUMI_CONFIG={}", "PULUMI_CONFIG_SECRET_KEYS=[]", "PULUMI_DRY_RUN=false"} {
		if !slices.Contains(env, entry) {
			t.Errorf("env lacks %s: %q", entry, env)
		}
	}
}

func TestBuildTargetIsAPackagePathInTheProgramDirectory(t *testing.T) {
	cases := map[string]string{"": ".", ".": ".", "cmd/prog": "./cmd/prog", "./cmd/prog/": "./cmd/prog", "/abs": "/abs"}
	for entry, want := range cases {
		req := &pulumirpc.RunRequest{Info: &pulumirpc.ProgramInfo{EntryPoint: entry}}
		if got := buildTarget(req); got != want {
			t.Errorf("buildTarget(%q) = %q, want %q", entry, got, want)
		}
	}
}

func TestParseRuntimeOptionsReadsAPrebuiltBinary(t *testing.T) {
	options, _ := structpb.NewStruct(map[string]any{"binary": "bin/prog", "buildTarget": "ignored"})
	if parsed, err := parseRuntimeOptions(options); err != nil || parsed.binary != "bin/prog" {
		t.Errorf("parseRuntimeOptions = %+v, %v", parsed, err)
	}
	wrong, _ := structpb.NewStruct(map[string]any{"binary": true})
	if _, err := parseRuntimeOptions(wrong); err == nil {
		t.Error("a non-string `binary` option must be rejected")
	}
}

func TestTheGeneratedGoModRequiresTheSDKTheHostLinks(t *testing.T) {
	raw, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := modfile.Parse("go.mod", raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, req := range mod.Require {
		if req.Mod.Path == sdkModule {
			if got := linkedSDKVersion(); got != req.Mod.Version {
				t.Errorf("linkedSDKVersion() = %s, go.mod requires %s", got, req.Mod.Version)
			}
			return
		}
	}
	t.Fatalf("go.mod does not require %s", sdkModule)
}

func TestGoModFileIsTheParentOfTheImportBasePath(t *testing.T) {
	v := semver.MustParse("0.1.0")
	pkg := &schema.Package{Name: "platform", Version: &v, Language: map[string]any{
		"go": codegen.GoPackageInfo{ImportBasePath: "github.com/pulumi-platform/native-sdks/go/platform"},
	}}

	raw, err := goModFile(pkg, map[string]string{"pulumi": "../sdk"})
	if err != nil {
		t.Fatal(err)
	}

	text := string(raw)
	for _, line := range []string{
		"module github.com/pulumi-platform/native-sdks/go\n",
		"require github.com/pulumi/pulumi/sdk/v3 " + linkedSDKVersion() + "\n",
		"replace github.com/pulumi/pulumi/sdk/v3 => ../sdk\n",
	} {
		if !strings.Contains(text, line) {
			t.Errorf("go.mod lacks %q:\n%s", line, text)
		}
	}
}
