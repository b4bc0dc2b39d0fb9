// Package host is what our minimal language hosts (../../cmd/pulumi-language-*) share: the plugin protocol, the
// LanguageRuntime calls every host answers the same way, the variables that carry a stack's configuration to a
// program, how a program's exit maps to the engine's answer, and code generation around upstream's generators.
//
// Why the hosts exist at all: upstream's language hosts live in their own Go modules (for Node.js
// github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3, for Go .../sdk/go/pulumi-language-go/v3, for
// Python .../sdk/python/cmd/pulumi-language-python/v3), which the Go module proxy reachable from our machines
// refuses (403 for every version). The engine (pkg/v3) and the SDK (sdk/v3) modules ARE served, so
// scripts/build-engine.sh builds the `pulumi` CLI from upstream and our hosts from the SDK's gRPC stubs and
// upstream's code generators. If the upstream modules ever become obtainable, build those and delete this module.
//
// A host for a new language is one command under cmd/: a languageHost embedding Base, with Run, About,
// GetProgramDependencies and a Generator; everything else is here.
package host

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"
)

// Flags are what the engine passes on a host's command line: optional logging/tracing flags, then its address.
type Flags struct {
	EngineAddress string
	Tracing       string // Zipkin-compatible tracing endpoint, or ""
}

// Serve runs a language host as the engine launches it: it parses the command line, listens on a free local port,
// prints that port on stdout (the plugin protocol) and serves until the engine stops it (SIGINT, see children.go)
// or goes away. It does not return.
func Serve(name string, newHost func(Flags) pulumirpc.LanguageRuntimeServer) {
	stopOnSignals()

	// The engine passes these before its address when its own logging or tracing is on; accept them so that
	// `pulumi -v=9 --logflow` does not break the plugin launch. Our own flag set, because a linked dependency
	// (glog) registers `v` and `logtostderr` on the global one.
	flags := flag.NewFlagSet(name, flag.ExitOnError)
	flags.Bool("logtostderr", false, "log to stderr (accepted for compatibility; unused)")
	flags.Int("v", 0, "log verbosity (accepted for compatibility; unused)")
	tracing := flags.String("tracing", "", "Zipkin-compatible tracing endpoint, passed on to the program if it can use it")
	_ = flags.Parse(os.Args[1:]) // ExitOnError: never returns an error

	server := newHost(Flags{EngineAddress: flags.Arg(0), Tracing: *tracing})
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, server)
			return nil
		},
	})
	if err != nil {
		Fail(name, "could not start the language host's gRPC server: "+err.Error())
	}
	fmt.Printf("%d\n", handle.Port)
	if err := <-handle.Done; err != nil {
		Fail(name, "the language host's gRPC server stopped: "+err.Error())
	}
	os.Exit(0)
}

// Fail prints "<name>: <message>" on stderr and exits 1.
func Fail(name, message string) {
	fmt.Fprintln(os.Stderr, name+": "+message)
	os.Exit(1)
}

// Base answers the LanguageRuntime calls that every one of our hosts answers the same way. Embed it.
type Base struct {
	pulumirpc.UnimplementedLanguageRuntimeServer

	Name           string // the command's name, e.g. pulumi-language-python
	Version        string // the Pulumi version it pairs with (set at build time)
	InstallMessage string // what InstallDependencies says instead of installing

	mu            sync.Mutex
	engineAddress string // from the command line, replaced by the one sent in Handshake
}

// NewBase is a Base for the command name, its version and its InstallDependencies message.
func NewBase(name, version, installMessage string, flags Flags) *Base {
	return &Base{Name: name, Version: version, InstallMessage: installMessage, engineAddress: flags.EngineAddress}
}

// EngineAddress is the engine's gRPC address as last given (command line or Handshake).
func (b *Base) EngineAddress() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.engineAddress
}

func (b *Base) Handshake(
	_ context.Context, req *pulumirpc.LanguageHandshakeRequest,
) (*pulumirpc.LanguageHandshakeResponse, error) {
	if address := req.GetEngineAddress(); address != "" {
		b.mu.Lock()
		b.engineAddress = address
		b.mu.Unlock()
	}
	return &pulumirpc.LanguageHandshakeResponse{}, nil
}

func (b *Base) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: b.Version}, nil
}

// GetRequiredPlugins answers "none": the plugins a program uses are installed explicitly (`pulumi plugin install`,
// Pulumi.yaml's `plugins:`) or ship with the SDK (the dynamic-provider launcher), never discovered and downloaded.
func (b *Base) GetRequiredPlugins(
	context.Context, *pulumirpc.GetRequiredPluginsRequest,
) (*pulumirpc.GetRequiredPluginsResponse, error) {
	return &pulumirpc.GetRequiredPluginsResponse{}, nil
}

// GetRequiredPackages answers "none", for the same reason as GetRequiredPlugins.
func (b *Base) GetRequiredPackages(
	context.Context, *pulumirpc.GetRequiredPackagesRequest,
) (*pulumirpc.GetRequiredPackagesResponse, error) {
	return &pulumirpc.GetRequiredPackagesResponse{}, nil
}

// InstallDependencies installs nothing (the machine may be offline; a package manager's install is the user's
// job) and says so.
func (b *Base) InstallDependencies(
	_ *pulumirpc.InstallDependenciesRequest, stream pulumirpc.LanguageRuntime_InstallDependenciesServer,
) error {
	return stream.Send(&pulumirpc.InstallDependenciesResponse{
		Stdout: []byte(b.Name + " (pulumi-platform): " + b.InstallMessage + "\n"),
	})
}

func (b *Base) RuntimeOptionsPrompts(
	context.Context, *pulumirpc.RuntimeOptionsRequest,
) (*pulumirpc.RuntimeOptionsResponse, error) {
	return &pulumirpc.RuntimeOptionsResponse{}, nil
}

// Cancel is a no-op: a running program is stopped through the cancellation of its Run call.
func (b *Base) Cancel(context.Context, *emptypb.Empty) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

// About describes the language's executable by running it with versionArgs (e.g. `node --version`); trim is
// removed from the front of what it prints.
func About(executable string, trim string, versionArgs ...string) (*pulumirpc.AboutResponse, error) {
	out, err := exec.Command(executable, versionArgs...).Output()
	if err != nil {
		return nil, fmt.Errorf("could not run `%s %s`: %w", executable, strings.Join(versionArgs, " "), err)
	}
	return &pulumirpc.AboutResponse{
		Executable: executable,
		Version:    strings.TrimPrefix(strings.TrimSpace(string(out)), trim),
		Metadata:   map[string]string{"languageHost": "pulumi-platform minimal host"},
	}, nil
}

// ProgramDirectory is where Pulumi.yaml's `main` points, else the working directory.
func ProgramDirectory(info *pulumirpc.ProgramInfo, pwd string) string {
	if dir := info.GetProgramDirectory(); dir != "" {
		return dir
	}
	return pwd
}

// ConfigEnvironment is the stack's configuration in the variables every Pulumi SDK reads: PULUMI_CONFIG, a JSON
// object of "namespace:key" to string value, and PULUMI_CONFIG_SECRET_KEYS, a JSON array of the secret keys.
func ConfigEnvironment(req *pulumirpc.RunRequest) (map[string]string, error) {
	config := req.GetConfig()
	if config == nil {
		config = map[string]string{}
	}
	configJSON, err := json.Marshal(config)
	if err != nil {
		return nil, fmt.Errorf("could not serialize the stack configuration: %w", err)
	}
	secretKeys := req.GetConfigSecretKeys()
	if secretKeys == nil {
		secretKeys = []string{}
	}
	secretKeysJSON, err := json.Marshal(secretKeys)
	if err != nil {
		return nil, fmt.Errorf("could not serialize the secret configuration keys: %w", err)
	}
	return map[string]string{
		"PULUMI_CONFIG":             string(configJSON),
		"PULUMI_CONFIG_SECRET_KEYS": string(secretKeysJSON),
	}, nil
}

// Environment is our own environment with each of ours replacing any inherited value of the same name.
func Environment(ours map[string]string) []string {
	env := []string{}
	for _, entry := range os.Environ() {
		name, _, _ := strings.Cut(entry, "=")
		if _, replaced := ours[name]; !replaced {
			env = append(env, entry)
		}
	}
	for name, value := range ours {
		env = append(env, name+"="+value)
	}
	return env
}

// ExitCodeAfterUserActionableMessage is what every Pulumi SDK's program runner exits with when it has already
// logged the error through the engine: the engine should stop without printing anything more (a "bail").
const ExitCodeAfterUserActionableMessage = 32

// RunProgram runs a program to completion with the engine seeing its output as ours, stopping it with SIGINT
// (then a kill 10 s later) if the Run call is cancelled, or with the host (RunChild), and maps how it ended to the
// engine's answer: a program failure goes in the RunResponse; a gRPC error is reserved for failures of the host
// itself.
func RunProgram(cmd *exec.Cmd) *pulumirpc.RunResponse {
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGINT) }
	cmd.WaitDelay = 10 * time.Second
	return RunResponse(RunChild(cmd), cmd.Path)
}

// RunResponse maps how a program ended to what the engine expects.
func RunResponse(err error, executable string) *pulumirpc.RunResponse {
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return &pulumirpc.RunResponse{}
	case errors.As(err, &exitErr) && exitErr.ExitCode() == ExitCodeAfterUserActionableMessage:
		return &pulumirpc.RunResponse{Bail: true}
	case errors.As(err, &exitErr) && exitErr.ExitCode() >= 0:
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("Program exited with non-zero exit code: %d", exitErr.ExitCode())}
	case errors.As(err, &exitErr):
		return &pulumirpc.RunResponse{Error: "Program exited unexpectedly: " + exitErr.Error()}
	default:
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("could not run the program with %s: %v", executable, err)}
	}
}
