// Command pulumi-language-nodejs is a minimal Node.js language host for the Pulumi engine, written for this
// project.
//
// Why it exists: the upstream host lives in its own Go module,
// github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3, which has no tags and which the Go module
// proxy reachable from our build machines refuses (403 for every version, including the pseudo-version of the
// release commit). The engine (pkg/v3) and the SDK (sdk/v3) modules ARE obtainable, so scripts/build-engine.sh
// builds the `pulumi` CLI from upstream and this host from the SDK's generated gRPC stubs. If the upstream module
// ever becomes obtainable, build that instead and delete this directory.
//
// How it works: the engine starts it as a plugin, with optional logging/tracing flags followed by the engine's
// gRPC address as the last argument. It listens on a free local port, prints that port on stdout (the plugin
// protocol), and answers LanguageRuntime calls. `Run` starts `node` on the Node SDK's own entry script
// `@pulumi/pulumi/cmd/run`, resolved from the program directory, with the flags and environment that script reads
// (cmd/run/index.js, cmd/run/run.js and runtime/config.js of @pulumi/pulumi). From there the Node SDK talks to the
// engine's resource monitor directly, exactly as under the upstream host, and TypeScript is loaded through ts-node
// by cmd/run itself.
//
// It also generates code with upstream's generator (codegen.go): the TypeScript SDK of a package schema
// (`pulumi package gen-sdk --language nodejs`, which `npm run sdks` uses) and the TypeScript `pulumi import` prints;
// and it links a generated SDK into a program for `pulumi package add` (link.go).
//
// What it deliberately does not do: discover resource plugins from node_modules (programs that need one must have
// it installed), install dependencies (`npm install` is the user's job), pack SDKs, or attach a debugger. Those
// calls answer "none", a no-op, or Unimplemented.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"
)

// version is set at build time (-ldflags "-X main.version=vX.Y.Z") to the Pulumi version it pairs with.
var version = "v0.0.0-dev"

// runScriptOverrideEnv lets a test point the host at another cmd/run script, like the upstream host allows.
const runScriptOverrideEnv = "PULUMI_LANGUAGE_NODEJS_RUN_PATH"

// exitCodeAfterUserActionableMessage is what cmd/run exits with when it has already logged the error through
// the engine: the engine should stop without printing anything more (a "bail").
const exitCodeAfterUserActionableMessage = 32

func main() {
	// The engine passes these before its address when its own logging or tracing is on; accept them so that
	// `pulumi -v=9 --logflow` does not break the plugin launch. Only tracing is used (passed on to cmd/run). Our
	// own flag set, because a linked dependency (glog) registers `v` and `logtostderr` on the global one.
	flags := flag.NewFlagSet("pulumi-language-nodejs", flag.ExitOnError)
	flags.Bool("logtostderr", false, "log to stderr (accepted for compatibility; unused)")
	flags.Int("v", 0, "log verbosity (accepted for compatibility; unused)")
	tracing := flags.String("tracing", "", "Zipkin-compatible tracing endpoint, passed on to the Node.js program")
	_ = flags.Parse(os.Args[1:]) // ExitOnError: never returns an error

	node, err := exec.LookPath("node")
	if err != nil {
		fail("could not find `node` on PATH: install Node.js 20 or later")
	}

	host := &languageHost{node: node, tracing: *tracing, engineAddress: flags.Arg(0)}
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, host)
			return nil
		},
	})
	if err != nil {
		fail("could not start the language host's gRPC server: " + err.Error())
	}

	// The plugin protocol: the first line on stdout is the port the engine dials.
	fmt.Printf("%d\n", handle.Port)

	if err := <-handle.Done; err != nil {
		fail("the language host's gRPC server stopped: " + err.Error())
	}
}

func fail(message string) {
	fmt.Fprintln(os.Stderr, "pulumi-language-nodejs: "+message)
	os.Exit(1)
}

// languageHost implements pulumirpc.LanguageRuntimeServer for Node.js programs.
type languageHost struct {
	pulumirpc.UnimplementedLanguageRuntimeServer

	node    string // absolute path of the `node` executable
	tracing string // tracing endpoint from the command line, or ""

	mu            sync.Mutex
	engineAddress string // from the command line, replaced by the one sent in Handshake
}

func (h *languageHost) Handshake(
	_ context.Context, req *pulumirpc.LanguageHandshakeRequest,
) (*pulumirpc.LanguageHandshakeResponse, error) {
	if address := req.GetEngineAddress(); address != "" {
		h.mu.Lock()
		h.engineAddress = address
		h.mu.Unlock()
	}
	return &pulumirpc.LanguageHandshakeResponse{}, nil
}

func (h *languageHost) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: version}, nil
}

// GetRequiredPlugins answers "none": our programs only use dynamic providers, which run on the
// pulumi-resource-pulumi-nodejs launcher that ships with @pulumi/pulumi, not on a downloadable plugin.
func (h *languageHost) GetRequiredPlugins(
	context.Context, *pulumirpc.GetRequiredPluginsRequest,
) (*pulumirpc.GetRequiredPluginsResponse, error) {
	return &pulumirpc.GetRequiredPluginsResponse{}, nil
}

// GetRequiredPackages answers "none", for the same reason as GetRequiredPlugins.
func (h *languageHost) GetRequiredPackages(
	context.Context, *pulumirpc.GetRequiredPackagesRequest,
) (*pulumirpc.GetRequiredPackagesResponse, error) {
	return &pulumirpc.GetRequiredPackagesResponse{}, nil
}

// InstallDependencies does nothing: this host never runs a package manager (the machine may be offline).
func (h *languageHost) InstallDependencies(
	_ *pulumirpc.InstallDependenciesRequest, stream pulumirpc.LanguageRuntime_InstallDependenciesServer,
) error {
	return stream.Send(&pulumirpc.InstallDependenciesResponse{
		Stdout: []byte("pulumi-language-nodejs (pulumi-platform): not installing anything; run `npm install` yourself\n"),
	})
}

func (h *languageHost) RuntimeOptionsPrompts(
	context.Context, *pulumirpc.RuntimeOptionsRequest,
) (*pulumirpc.RuntimeOptionsResponse, error) {
	return &pulumirpc.RuntimeOptionsResponse{}, nil
}

func (h *languageHost) About(context.Context, *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	out, err := exec.Command(h.node, "--version").Output()
	if err != nil {
		return nil, fmt.Errorf("could not run `%s --version`: %w", h.node, err)
	}
	return &pulumirpc.AboutResponse{
		Executable: h.node,
		Version:    strings.TrimPrefix(strings.TrimSpace(string(out)), "v"),
		Metadata:   map[string]string{"languageHost": "pulumi-platform minimal host"},
	}, nil
}

// GetProgramDependencies lists the dependencies declared in the program's package.json (declared ranges, not
// resolved versions: resolving would mean reimplementing npm's lockfile handling for a diagnostic command).
func (h *languageHost) GetProgramDependencies(
	_ context.Context, req *pulumirpc.GetProgramDependenciesRequest,
) (*pulumirpc.GetProgramDependenciesResponse, error) {
	dir := req.GetInfo().GetProgramDirectory()
	if dir == "" {
		dir = req.GetPwd()
	}
	raw, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if errors.Is(err, os.ErrNotExist) {
		return &pulumirpc.GetProgramDependenciesResponse{}, nil
	} else if err != nil {
		return nil, err
	}
	var manifest struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(raw, &manifest); err != nil {
		return nil, fmt.Errorf("could not parse %s: %w", filepath.Join(dir, "package.json"), err)
	}
	response := &pulumirpc.GetProgramDependenciesResponse{}
	for name, versionRange := range manifest.Dependencies {
		response.Dependencies = append(response.Dependencies, &pulumirpc.DependencyInfo{Name: name, Version: versionRange})
	}
	return response, nil
}

// Cancel is a no-op: a running program is stopped through the cancellation of its Run call.
func (h *languageHost) Cancel(context.Context, *emptypb.Empty) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

// Run executes the program once, to completion, and reports how it ended. A program failure is reported in
// RunResponse (as the engine expects), not as a gRPC error, which is reserved for failures of the host itself.
func (h *languageHost) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	info := req.GetInfo()
	programDir := info.GetProgramDirectory()
	if programDir == "" {
		programDir = req.GetPwd()
	}

	runScript, err := locateRunScript(programDir)
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	options, err := parseRuntimeOptions(info.GetOptions())
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	env, err := programEnvironment(req, options)
	if err != nil {
		return nil, err
	}

	h.mu.Lock()
	engineAddress := h.engineAddress
	h.mu.Unlock()

	cmd := exec.CommandContext(ctx, h.node, runArguments(req, options, runScript, engineAddress, h.tracing)...)
	cmd.Dir = req.GetPwd()
	cmd.Env = env
	// The engine shows our stdout and stderr as the program's output.
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	// On cancellation, let the Node SDK shut down cleanly first, then kill it.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGINT) }
	cmd.WaitDelay = 10 * time.Second

	err = cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return &pulumirpc.RunResponse{}, nil
	case errors.As(err, &exitErr) && exitErr.ExitCode() == exitCodeAfterUserActionableMessage:
		return &pulumirpc.RunResponse{Bail: true}, nil
	case errors.As(err, &exitErr) && exitErr.ExitCode() >= 0:
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("Program exited with non-zero exit code: %d", exitErr.ExitCode())}, nil
	case errors.As(err, &exitErr):
		return &pulumirpc.RunResponse{Error: "Program exited unexpectedly: " + exitErr.Error()}, nil
	default:
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("could not run the program with %s: %v", h.node, err)}, nil
	}
}

// runArguments builds `node [nodeargs] <cmd/run> --flag=value... <entry point> [program args]`, the command line
// cmd/run/index.js parses with minimist (flags first, then the program; stopEarly).
func runArguments(
	req *pulumirpc.RunRequest, options runtimeOptions, runScript, engineAddress, tracing string,
) []string {
	args := append([]string{}, options.nodeArgs...)
	args = append(args, runScript)
	withValue := func(name, value string) {
		if value != "" {
			args = append(args, "--"+name+"="+value)
		}
	}
	withValue("monitor", req.GetMonitorAddress())
	withValue("engine", engineAddress)
	withValue("organization", req.GetOrganization())
	withValue("project", req.GetProject())
	withValue("stack", req.GetStack())
	withValue("root-directory", req.GetInfo().GetRootDirectory())
	withValue("pwd", req.GetPwd())
	if req.GetDryRun() {
		args = append(args, "--dry-run")
	}
	if req.GetParallel() > 0 {
		withValue("parallel", strconv.Itoa(int(req.GetParallel())))
	}
	withValue("tracing", tracing)
	args = append(args, entryPoint(req))
	return append(args, req.GetArgs()...)
}

// entryPoint is the program to load, relative to the working directory cmd/run switches to (--pwd). "." is
// passed through untouched: cmd/run then honours package.json's `main`/`exports`, as under the upstream host.
func entryPoint(req *pulumirpc.RunRequest) string {
	info := req.GetInfo()
	entry := info.GetEntryPoint()
	if entry == "" {
		entry = req.GetProgram() //nolint:staticcheck // older engines send only the deprecated field
	}
	if entry == "" {
		entry = "."
	}
	programDir := info.GetProgramDirectory()
	if programDir == "" || filepath.IsAbs(entry) || filepath.Clean(programDir) == filepath.Clean(req.GetPwd()) {
		return entry
	}
	return filepath.Join(programDir, entry)
}

// programEnvironment is our environment plus the stack's configuration in the variables runtime/config.js reads
// (PULUMI_CONFIG: a JSON object of "namespace:key" to string value; PULUMI_CONFIG_SECRET_KEYS: a JSON array of
// the keys whose values are secret) and the TypeScript switches cmd/run/run.js reads.
func programEnvironment(req *pulumirpc.RunRequest, options runtimeOptions) ([]string, error) {
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

	ours := map[string]string{
		"PULUMI_CONFIG":             string(configJSON),
		"PULUMI_CONFIG_SECRET_KEYS": string(secretKeysJSON),
		"PULUMI_NODEJS_TYPESCRIPT":  strconv.FormatBool(options.typescript),
	}
	if options.tsconfig != "" {
		ours["PULUMI_NODEJS_TSCONFIG_PATH"] = options.tsconfig
	}
	// Through NODE_OPTIONS rather than `node --require`: cmd/run turns off its automatic ESM mode when it sees
	// --require in process.execArgv, and NODE_OPTIONS does not show there.
	if preload := preloadScript(); preload != "" {
		ours["NODE_OPTIONS"] = strings.TrimSpace(os.Getenv("NODE_OPTIONS") + ` --require "` + preload + `"`)
	}

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
	return env, nil
}

// preloadScript is preload.js (a workaround for a Node.js 20 bug, see that file) as build-engine.sh installs it
// beside this binary, or "" when it is missing or its path cannot be quoted in NODE_OPTIONS.
func preloadScript() string {
	executable, err := os.Executable()
	if err != nil {
		return ""
	}
	preload := filepath.Join(filepath.Dir(executable), "pulumi-language-nodejs-preload.js")
	if _, err := os.Stat(preload); err != nil || strings.ContainsAny(preload, `"\`) {
		return ""
	}
	return preload
}

// runtimeOptions are the `runtime.options` of Pulumi.yaml this host understands (the upstream names).
type runtimeOptions struct {
	typescript bool     // load .ts sources through ts-node (default true)
	tsconfig   string   // tsconfig file for ts-node, relative to the program directory
	nodeArgs   []string // extra arguments for node, space-separated in Pulumi.yaml
}

func parseRuntimeOptions(options *structpb.Struct) (runtimeOptions, error) {
	parsed := runtimeOptions{typescript: true}
	for name, value := range options.GetFields() {
		switch name {
		case "typescript":
			b, ok := value.GetKind().(*structpb.Value_BoolValue)
			if !ok {
				return parsed, errors.New("Pulumi.yaml: runtime option `typescript` must be true or false")
			}
			parsed.typescript = b.BoolValue
		case "tsconfig":
			parsed.tsconfig = value.GetStringValue()
		case "nodeargs":
			parsed.nodeArgs = strings.Fields(value.GetStringValue())
		}
	}
	return parsed, nil
}

// locateRunScript finds @pulumi/pulumi/cmd/run the way Node's require.resolve would from the program directory:
// the nearest node_modules/@pulumi/pulumi walking up. The program and its providers then share that one SDK copy.
func locateRunScript(programDir string) (string, error) {
	if override := os.Getenv(runScriptOverrideEnv); override != "" {
		return override, nil
	}
	dir, err := filepath.Abs(programDir)
	if err != nil {
		return "", err
	}
	for {
		candidate := filepath.Join(dir, "node_modules", "@pulumi", "pulumi", "cmd", "run", "index.js")
		if _, err := os.Stat(candidate); err == nil {
			return candidate, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf(
				"could not find @pulumi/pulumi in node_modules from %s upwards: run `npm install` first", programDir)
		}
		dir = parent
	}
}
