// Unit tests of how the host turns a RunRequest into Python's command line and environment (the contract with
// upstream's pulumi-language-python-exec). The host runs under the real engine in test/e2e/python-program.e2e.test.ts.
// Run: cd scripts/engine/langhost && GOSUMDB=off GOFLAGS=-mod=mod go test ./...
package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/structpb"
)

func TestRunArgumentsAreWhatTheRunnerParses(t *testing.T) {
	req := &pulumirpc.RunRequest{
		MonitorAddress: "127.0.0.1:1", Project: "proj", Stack: "dev", Organization: "org", Pwd: "/work/prog",
		DryRun: true, Parallel: 8, Args: []string{"--user-arg"},
		Info: &pulumirpc.ProgramInfo{RootDirectory: "/work", ProgramDirectory: "/work/prog", EntryPoint: "."},
	}

	got := runArguments(req, "/bin/exec", "127.0.0.1:2", "")

	want := []string{
		"-u", "/bin/exec", "--monitor", "127.0.0.1:1", "--engine", "127.0.0.1:2", "--organization", "org",
		"--project", "proj", "--stack", "dev", "--root_directory", "/work", "--pwd", "/work/prog",
		"--dry_run", "true", "--parallel", "8", ".", "--user-arg",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("runArguments:\n got %q\nwant %q", got, want)
	}
}

func TestRunArgumentsAlwaysGiveParallelAndDryRun(t *testing.T) {
	got := runArguments(&pulumirpc.RunRequest{MonitorAddress: "m"}, "exec", "", "")

	want := []string{"-u", "exec", "--monitor", "m", "--dry_run", "false", "--parallel", "0", "."}
	if !slices.Equal(got, want) {
		t.Fatalf("runArguments:\n got %q\nwant %q", got, want)
	}
}

func TestFindPythonPrefersTheConfiguredVirtualEnvironment(t *testing.T) {
	program := t.TempDir()
	venv := filepath.Join(program, "venv")
	if err := os.MkdirAll(filepath.Join(venv, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{filepath.Join(venv, "bin", "python"), filepath.Join(venv, "pyvenv.cfg")} {
		if err := os.WriteFile(file, nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("VIRTUAL_ENV", "/elsewhere")

	python, err := findPython(runtimeOptions{virtualenv: "venv"}, program)
	if err != nil || python != filepath.Join(venv, "bin", "python") {
		t.Fatalf("findPython = %q, %v", python, err)
	}
	env, err := programEnvironment(&pulumirpc.RunRequest{}, python)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(env, "VIRTUAL_ENV="+venv) {
		t.Errorf("the virtual environment is not activated for the program: %q", env)
	}

	if _, err := findPython(runtimeOptions{virtualenv: "missing"}, program); err == nil ||
		!strings.Contains(err.Error(), filepath.Join(program, "missing")) {
		t.Errorf("a missing virtual environment must be named: %v", err)
	}
}

func TestParseRuntimeOptionsRefusesWhatItDoesNotSupport(t *testing.T) {
	options, err := structpb.NewStruct(map[string]any{"virtualenv": "venv", "toolchain": "pip"})
	if err != nil {
		t.Fatal(err)
	}
	if parsed, err := parseRuntimeOptions(options); err != nil || parsed.virtualenv != "venv" {
		t.Errorf("parseRuntimeOptions = %+v, %v", parsed, err)
	}
	options, _ = structpb.NewStruct(map[string]any{"toolchain": "poetry"})
	if _, err := parseRuntimeOptions(options); err == nil || !strings.Contains(err.Error(), "poetry") {
		t.Errorf("toolchain poetry must be refused by name: %v", err)
	}
}

func TestParseRequirementsSplitsNamesFromSpecifiers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "requirements.txt")
	contents := "# comment\npulumi==3.248.0\n-r other.txt\n\nrequests>=2 # why\nplain\n"
	if err := os.WriteFile(path, []byte(contents), 0o644); err != nil {
		t.Fatal(err)
	}
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()

	var got []string
	for _, dependency := range parseRequirements(file) {
		got = append(got, dependency.GetName()+" "+dependency.GetVersion())
	}
	if want := []string{"pulumi ==3.248.0", "requests >=2", "plain "}; !slices.Equal(got, want) {
		t.Errorf("parseRequirements = %q, want %q", got, want)
	}
}
