// Unit tests of how the host turns a RunRequest into node's command line and environment (the contract with
// @pulumi/pulumi's cmd/run). The whole host is exercised under the real engine by test/e2e/smoke.e2e.test.ts.
// Run: cd scripts/engine/langhost && GOSUMDB=off GOFLAGS=-mod=mod go test ./...
package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/structpb"
)

func TestRunArgumentsPutFlagsBeforeTheEntryPointAndProgramArgsAfter(t *testing.T) {
	req := &pulumirpc.RunRequest{
		MonitorAddress: "127.0.0.1:1",
		Project:        "proj",
		Stack:          "dev",
		Organization:   "org",
		Pwd:            "/work/prog",
		DryRun:         true,
		Parallel:       8,
		Args:           []string{"--user-arg"},
		Info:           &pulumirpc.ProgramInfo{RootDirectory: "/work", ProgramDirectory: "/work/prog", EntryPoint: "."},
	}

	got := runArguments(req, runtimeOptions{nodeArgs: []string{"--max-old-space-size=512"}}, "/sdk/cmd/run/index.js",
		"127.0.0.1:2", "")

	want := []string{
		"--max-old-space-size=512", "/sdk/cmd/run/index.js",
		"--monitor=127.0.0.1:1", "--engine=127.0.0.1:2", "--organization=org", "--project=proj", "--stack=dev",
		"--root-directory=/work", "--pwd=/work/prog", "--dry-run", "--parallel=8",
		".", "--user-arg",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("runArguments:\n got %q\nwant %q", got, want)
	}
}

func TestRunArgumentsOmitEmptyFlagsAndDryRunWhenUpdating(t *testing.T) {
	got := runArguments(&pulumirpc.RunRequest{MonitorAddress: "m", Pwd: "/p"}, runtimeOptions{}, "run.js", "", "")

	want := []string{"run.js", "--monitor=m", "--pwd=/p", "."}
	if !slices.Equal(got, want) {
		t.Fatalf("runArguments:\n got %q\nwant %q", got, want)
	}
}

func TestEntryPointIsRelativeToTheProgramDirectory(t *testing.T) {
	cases := []struct {
		name string
		req  *pulumirpc.RunRequest
		want string
	}{
		{"pwd is the program dir", &pulumirpc.RunRequest{Pwd: "/p", Info: &pulumirpc.ProgramInfo{
			ProgramDirectory: "/p", EntryPoint: "index.ts"}}, "index.ts"},
		{"program in a subdirectory", &pulumirpc.RunRequest{Pwd: "/p", Info: &pulumirpc.ProgramInfo{
			ProgramDirectory: "/p/src", EntryPoint: "."}}, "/p/src"},
		{"only the deprecated field", &pulumirpc.RunRequest{Pwd: "/p", Program: "main.js"}, "main.js"},
		{"nothing at all", &pulumirpc.RunRequest{Pwd: "/p"}, "."},
	}
	for _, c := range cases {
		if got := entryPoint(c.req); got != c.want {
			t.Errorf("%s: entryPoint = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestProgramEnvironmentCarriesConfigSecretKeysAndTypeScriptSwitches(t *testing.T) {
	t.Setenv("PULUMI_CONFIG", `{"stale":"value"}`)
	req := &pulumirpc.RunRequest{
		Config:           map[string]string{"platform:token": "t", "proj:name": "n"},
		ConfigSecretKeys: []string{"platform:token"},
	}

	env, err := programEnvironment(req, runtimeOptions{typescript: true, tsconfig: "tsconfig.pulumi.json"})
	if err != nil {
		t.Fatal(err)
	}

	values := map[string][]string{}
	for _, entry := range env {
		name, value, _ := strings.Cut(entry, "=")
		values[name] = append(values[name], value)
	}
	var config map[string]string
	if len(values["PULUMI_CONFIG"]) != 1 || json.Unmarshal([]byte(values["PULUMI_CONFIG"][0]), &config) != nil {
		t.Fatalf("want exactly one JSON PULUMI_CONFIG, got %q", values["PULUMI_CONFIG"])
	}
	if config["platform:token"] != "t" || config["proj:name"] != "n" || len(config) != 2 {
		t.Errorf("PULUMI_CONFIG = %v", config)
	}
	if got := values["PULUMI_CONFIG_SECRET_KEYS"]; !slices.Equal(got, []string{`["platform:token"]`}) {
		t.Errorf("PULUMI_CONFIG_SECRET_KEYS = %q", got)
	}
	if got := values["PULUMI_NODEJS_TYPESCRIPT"]; !slices.Equal(got, []string{"true"}) {
		t.Errorf("PULUMI_NODEJS_TYPESCRIPT = %q", got)
	}
	if got := values["PULUMI_NODEJS_TSCONFIG_PATH"]; !slices.Equal(got, []string{"tsconfig.pulumi.json"}) {
		t.Errorf("PULUMI_NODEJS_TSCONFIG_PATH = %q", got)
	}
}

func TestProgramEnvironmentWithoutConfigIsEmptyJSON(t *testing.T) {
	env, err := programEnvironment(&pulumirpc.RunRequest{}, runtimeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(env, "PULUMI_CONFIG={}") || !slices.Contains(env, "PULUMI_CONFIG_SECRET_KEYS=[]") ||
		!slices.Contains(env, "PULUMI_NODEJS_TYPESCRIPT=false") {
		t.Errorf("env lacks the empty config or the TypeScript switch: %q", env)
	}
}

func TestParseRuntimeOptions(t *testing.T) {
	options, err := structpb.NewStruct(map[string]any{
		"typescript": false, "tsconfig": "t.json", "nodeargs": "--a  --b", "packagemanager": "npm",
	})
	if err != nil {
		t.Fatal(err)
	}

	parsed, err := parseRuntimeOptions(options)
	if err != nil {
		t.Fatal(err)
	}
	if parsed.typescript || parsed.tsconfig != "t.json" || !slices.Equal(parsed.nodeArgs, []string{"--a", "--b"}) {
		t.Errorf("parseRuntimeOptions = %+v", parsed)
	}

	defaults, _ := parseRuntimeOptions(nil)
	if !defaults.typescript {
		t.Error("TypeScript must be on by default")
	}

	wrong, _ := structpb.NewStruct(map[string]any{"typescript": "yes"})
	if _, err := parseRuntimeOptions(wrong); err == nil {
		t.Error("a non-boolean `typescript` option must be rejected")
	}
}

func TestLocateRunScriptWalksUpToTheNearestSDK(t *testing.T) {
	root := t.TempDir()
	script := filepath.Join(root, "node_modules", "@pulumi", "pulumi", "cmd", "run", "index.js")
	program := filepath.Join(root, "examples", "quickstart")
	for _, dir := range []string{filepath.Dir(script), program} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(script, nil, 0o644); err != nil {
		t.Fatal(err)
	}

	if got, err := locateRunScript(program); err != nil || got != script {
		t.Errorf("locateRunScript = %q, %v; want %q", got, err, script)
	}
	if _, err := locateRunScript(t.TempDir()); err == nil || !strings.Contains(err.Error(), "npm install") {
		t.Errorf("without an SDK: want an error telling to run npm install, got %v", err)
	}
}
