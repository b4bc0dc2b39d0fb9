// Unit tests of RunPlugin, how the host runs a Node.js policy pack for the engine. The whole path is exercised
// under the real engine by test/e2e/policy-pack.e2e.test.ts.
package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// recordingStream is the server side of a RunPlugin stream, recording what the host sends.
type recordingStream struct {
	grpc.ServerStream
	ctx              context.Context
	stdout, stderr   strings.Builder
	exitCodes        []int32
	messagesAfterEnd int
}

func (s *recordingStream) Context() context.Context { return s.ctx }

func (s *recordingStream) Send(msg *pulumirpc.RunPluginResponse) error {
	if len(s.exitCodes) > 0 {
		s.messagesAfterEnd++
	}
	switch out := msg.GetOutput().(type) {
	case *pulumirpc.RunPluginResponse_Stdout:
		s.stdout.Write(out.Stdout)
	case *pulumirpc.RunPluginResponse_Stderr:
		s.stderr.Write(out.Stderr)
	case *pulumirpc.RunPluginResponse_Exitcode:
		s.exitCodes = append(s.exitCodes, out.Exitcode)
	}
	return nil
}

// fakeRunPolicyPack writes a stand-in for @pulumi/pulumi/cmd/run-policy-pack under root/node_modules that prints
// its arguments, working directory and one variable as JSON on stdout, a line on stderr, and exits with 3.
func fakeRunPolicyPack(t *testing.T, root string) string {
	t.Helper()
	script := filepath.Join(root, "node_modules", "@pulumi", "pulumi", "cmd", "run-policy-pack", "index.js")
	if err := os.MkdirAll(filepath.Dir(script), 0o755); err != nil {
		t.Fatal(err)
	}
	source := `console.log(JSON.stringify({argv: process.argv.slice(2), cwd: process.cwd(), marker: process.env.MARKER}));
console.error("to stderr");
process.exit(3);`
	if err := os.WriteFile(script, []byte(source), 0o644); err != nil {
		t.Fatal(err)
	}
	return script
}

func TestRunPluginRunsAPolicyPackThroughTheSDKRunnerAndStreamsItsOutput(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	root := t.TempDir()
	fakeRunPolicyPack(t, root)
	pack := filepath.Join(root, "policy")
	if err := os.MkdirAll(pack, 0o755); err != nil {
		t.Fatal(err)
	}
	h := &languageHost{node: node}
	stream := &recordingStream{ctx: context.Background()}

	err = h.RunPlugin(&pulumirpc.RunPluginRequest{
		Pwd:  t.TempDir(),
		Args: []string{"127.0.0.1:4242"},
		Env:  append(os.Environ(), "MARKER=from-the-engine"),
		Kind: "analyzer",
		Info: &pulumirpc.ProgramInfo{RootDirectory: pack, ProgramDirectory: pack, EntryPoint: "."},
	}, stream)
	if err != nil {
		t.Fatal(err)
	}

	var ran struct {
		Argv   []string `json:"argv"`
		Cwd    string   `json:"cwd"`
		Marker string   `json:"marker"`
	}
	if err := json.Unmarshal([]byte(stream.stdout.String()), &ran); err != nil {
		t.Fatalf("stdout is not the fake runner's JSON: %q (%v)", stream.stdout.String(), err)
	}
	if !slices.Equal(ran.Argv, []string{"127.0.0.1:4242", pack}) {
		t.Errorf("run-policy-pack got %q, want [engine address, pack directory]", ran.Argv)
	}
	if ran.Cwd != pack || ran.Marker != "from-the-engine" {
		t.Errorf("ran in %q with MARKER=%q; want the pack directory and the engine's environment", ran.Cwd, ran.Marker)
	}
	if stream.stderr.String() != "to stderr\n" {
		t.Errorf("stderr = %q", stream.stderr.String())
	}
	if !slices.Equal(stream.exitCodes, []int32{3}) || stream.messagesAfterEnd != 0 {
		t.Errorf("exit codes sent %v (%d messages after); want exactly [3], last", stream.exitCodes, stream.messagesAfterEnd)
	}
}

func TestRunPluginRefusesResourcePluginsAndPacksWithoutTheSDK(t *testing.T) {
	h := &languageHost{node: "node"}
	pack := t.TempDir()
	info := &pulumirpc.ProgramInfo{RootDirectory: pack, ProgramDirectory: pack, EntryPoint: "."}

	err := h.RunPlugin(&pulumirpc.RunPluginRequest{Kind: "resource", Info: info}, &recordingStream{ctx: context.Background()})
	if status.Code(err) != codes.Unimplemented {
		t.Errorf("a resource plugin: want Unimplemented, got %v", err)
	}
	err = h.RunPlugin(&pulumirpc.RunPluginRequest{Kind: "analyzer", Info: info}, &recordingStream{ctx: context.Background()})
	if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "npm install") {
		t.Errorf("a pack without @pulumi/pulumi: want FailedPrecondition telling to run npm install, got %v", err)
	}
}

func TestPolicyPackEnvironmentAddsThePreloadToTheEnginesNodeOptions(t *testing.T) {
	env := policyPackEnvironment([]string{"A=1", "NODE_OPTIONS=--max-old-space-size=512"})
	if !slices.Contains(env, "A=1") {
		t.Errorf("the engine's variables must be kept: %q", env)
	}
	count := 0
	for _, entry := range env {
		if value, ok := strings.CutPrefix(entry, "NODE_OPTIONS="); ok {
			count++
			if !strings.HasPrefix(value, "--max-old-space-size=512") {
				t.Errorf("NODE_OPTIONS lost the engine's value: %q", value)
			}
		}
	}
	if count != 1 {
		t.Errorf("want exactly one NODE_OPTIONS, got %d in %q", count, env)
	}
}
