package main

// RunPlugin: how the engine runs a Node.js policy pack (`pulumi preview --policy-pack DIR`). For a directory with
// a PulumiPolicy.yaml whose runtime is nodejs, the engine (sdk/v3 go/common/resource/plugin, newPlugin and
// NewPolicyAnalyzer) asks the language host to run it with kind "analyzer" and args [engine address]; the pack
// then serves the Analyzer gRPC service and prints its port on stdout, which the engine reads from this call's
// stream. As under the upstream host, the pack runs through @pulumi/pulumi's own runner, cmd/run-policy-pack,
// found from the pack's directory, with the environment the engine sends.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"pulumi-platform/engine/langhost/internal/host"
)

// analyzerKind is the plugin kind the engine sends for a policy pack (apitype.AnalyzerPlugin).
const analyzerKind = "analyzer"

func (h *languageHost) RunPlugin(
	req *pulumirpc.RunPluginRequest, server pulumirpc.LanguageRuntime_RunPluginServer,
) error {
	if req.GetKind() != analyzerKind {
		return status.Errorf(codes.Unimplemented,
			"%s (pulumi-platform) runs policy packs only, not %q plugins", name, req.GetKind())
	}
	packDir := req.GetInfo().GetProgramDirectory()
	runScript, err := locateSDKScript(packDir, "run-policy-pack")
	if err != nil {
		return status.Error(codes.FailedPrecondition, err.Error())
	}
	options, err := parseRuntimeOptions(req.GetInfo().GetOptions())
	if err != nil {
		return status.Error(codes.InvalidArgument, err.Error())
	}

	cmd := exec.CommandContext(server.Context(), h.node, policyPackArguments(req, options, runScript)...)
	cmd.Dir = packDir
	cmd.Env = policyPackEnvironment(req.GetEnv())
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGINT) }
	cmd.WaitDelay = 10 * time.Second

	send := &streamSender{server: server}
	cmd.Stdout = send.writer(func(b []byte) *pulumirpc.RunPluginResponse {
		return &pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Stdout{Stdout: b}}
	})
	cmd.Stderr = send.writer(func(b []byte) *pulumirpc.RunPluginResponse {
		return &pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Stderr{Stderr: b}}
	})
	code := int32(0)
	if err := host.RunChild(cmd); err != nil {
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) {
			return status.Errorf(codes.Internal, "could not run the policy pack in %s with %s: %v", packDir, h.node, err)
		}
		code = int32(exitErr.ExitCode())
	}
	return send.send(&pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Exitcode{Exitcode: code}})
}

// policyPackArguments builds `node [nodeargs] <cmd/run-policy-pack> <engine address> <pack directory>`, the
// command line run-policy-pack/index.js parses (`usage: RUN <engine-address> <program>`).
func policyPackArguments(req *pulumirpc.RunPluginRequest, options runtimeOptions, runScript string) []string {
	args := append([]string{}, options.nodeArgs...)
	args = append(args, runScript)
	args = append(args, req.GetArgs()...)
	return append(args, req.GetInfo().GetProgramDirectory())
}

// policyPackEnvironment is the environment the engine sent (its own, with its additions), with the Node.js 20
// workaround preloaded as for programs.
func policyPackEnvironment(engineEnv []string) []string {
	env := append([]string{}, engineEnv...)
	if len(env) == 0 {
		env = os.Environ()
	}
	preload := preloadScript()
	if preload == "" {
		return env
	}
	nodeOptions := ""
	kept := env[:0]
	for _, entry := range env {
		if value, found := strings.CutPrefix(entry, "NODE_OPTIONS="); found {
			nodeOptions = value // the last one wins, as in a process environment
			continue
		}
		kept = append(kept, entry)
	}
	return append(kept, "NODE_OPTIONS="+strings.TrimSpace(nodeOptions+` --require "`+preload+`"`))
}

// streamSender sends a plugin's output on the RunPlugin stream, one message per write, from both of the process's
// output pipes (a gRPC stream must not be sent on concurrently).
type streamSender struct {
	mu     sync.Mutex
	server pulumirpc.LanguageRuntime_RunPluginServer
}

func (s *streamSender) send(msg *pulumirpc.RunPluginResponse) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.server.Send(msg)
}

func (s *streamSender) writer(wrap func([]byte) *pulumirpc.RunPluginResponse) io.Writer {
	return writerFunc(func(b []byte) (int, error) {
		if err := s.send(wrap(append([]byte{}, b...))); err != nil {
			return 0, err
		}
		return len(b), nil
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// locateSDKScript finds @pulumi/pulumi/cmd/<command>/index.js the way Node's require.resolve would from dir: the
// nearest node_modules/@pulumi/pulumi walking up.
func locateSDKScript(dir, command string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for at := abs; ; {
		candidate := filepath.Join(at, "node_modules", "@pulumi", "pulumi", "cmd", command, "index.js")
		if _, err := os.Stat(candidate); err == nil {
			return candidate, nil
		}
		parent := filepath.Dir(at)
		if parent == at {
			return "", fmt.Errorf(
				"could not find @pulumi/pulumi in node_modules from %s upwards: run `npm install` there first", dir)
		}
		at = parent
	}
}
