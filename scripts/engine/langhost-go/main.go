// Command pulumi-language-go is a minimal Go language host for the Pulumi engine, written for this project.
//
// Why it exists: for the same reason as ../langhost (our Node.js host). Upstream's Go host lives in its own
// module, github.com/pulumi/pulumi/sdk/go/pulumi-language-go/v3, which the Go module proxy reachable from our
// machines does not serve; pkg/v3 and sdk/v3 are served, so scripts/build-engine.sh builds this host from the SDK's
// generated gRPC stubs and upstream's Go code generator. It lets the engine run Go programs that use the SDK
// generated from schema.json (native-sdks/go) and generate that SDK (`pulumi package gen-sdk --language go`).
//
// How it works: the plugin protocol of ../langhost (flags, then the engine's address; the port on stdout). `Run`
// builds the program with `go build` in its directory (the user's GOFLAGS, GOPROXY... apply: nothing here goes
// to the network on its own) into a temporary directory, then runs the binary with the variables the Go SDK reads
// (sdk/v3/go/pulumi/run.go: PULUMI_MONITOR, PULUMI_ENGINE, PULUMI_PROJECT, ...). Pulumi.yaml's
// `runtime.options.binary` names a prebuilt binary instead, as upstream allows.
//
// What it deliberately does not do: discover the plugins a program needs (they are installed explicitly), run
// `go mod download` or `go mod tidy`, attach a debugger, or pack an SDK.
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

	"github.com/pulumi/pulumi/sdk/v3/go/common/constant"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"golang.org/x/mod/modfile"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"
)

// version is set at build time (-ldflags "-X main.version=vX.Y.Z") to the Pulumi version it pairs with.
var version = "v0.0.0-dev"

func main() {
	// As in ../langhost: accept the engine's logging and tracing flags so that `pulumi -v=9` does not break the
	// launch; our own flag set, because a linked dependency (glog) registers `v` on the global one.
	flags := flag.NewFlagSet("pulumi-language-go", flag.ExitOnError)
	flags.Bool("logtostderr", false, "log to stderr (accepted for compatibility; unused)")
	flags.Int("v", 0, "log verbosity (accepted for compatibility; unused)")
	flags.String("tracing", "", "tracing endpoint (accepted for compatibility; unused)")
	_ = flags.Parse(os.Args[1:]) // ExitOnError: never returns an error

	host := &languageHost{engineAddress: flags.Arg(0)}
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
	fmt.Fprintln(os.Stderr, "pulumi-language-go: "+message)
	os.Exit(1)
}

// languageHost implements pulumirpc.LanguageRuntimeServer for Go programs.
type languageHost struct {
	pulumirpc.UnimplementedLanguageRuntimeServer

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

// GetRequiredPlugins answers "none": the provider plugin a program uses is installed explicitly (`pulumi plugin
// install` or Pulumi.yaml's `plugins:`), never downloaded.
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

// InstallDependencies does nothing: `go build` in Run fetches what go.mod lists, through the user's GOPROXY.
func (h *languageHost) InstallDependencies(
	_ *pulumirpc.InstallDependenciesRequest, stream pulumirpc.LanguageRuntime_InstallDependenciesServer,
) error {
	return stream.Send(&pulumirpc.InstallDependenciesResponse{
		Stdout: []byte("pulumi-language-go (pulumi-platform): not installing anything; `go build` fetches modules\n"),
	})
}

func (h *languageHost) RuntimeOptionsPrompts(
	context.Context, *pulumirpc.RuntimeOptionsRequest,
) (*pulumirpc.RuntimeOptionsResponse, error) {
	return &pulumirpc.RuntimeOptionsResponse{}, nil
}

func (h *languageHost) About(context.Context, *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	goTool, err := findGo()
	if err != nil {
		return nil, err
	}
	out, err := exec.Command(goTool, "env", "GOVERSION").Output()
	if err != nil {
		return nil, fmt.Errorf("could not run `%s env GOVERSION`: %w", goTool, err)
	}
	return &pulumirpc.AboutResponse{
		Executable: goTool,
		Version:    strings.TrimPrefix(strings.TrimSpace(string(out)), "go"),
		Metadata:   map[string]string{"languageHost": "pulumi-platform minimal host"},
	}, nil
}

// GetProgramDependencies lists the requirements of the program's go.mod (as written, not as resolved by MVS:
// resolving could need the network, and this is a diagnostic command).
func (h *languageHost) GetProgramDependencies(
	_ context.Context, req *pulumirpc.GetProgramDependenciesRequest,
) (*pulumirpc.GetProgramDependenciesResponse, error) {
	dir := req.GetInfo().GetProgramDirectory()
	if dir == "" {
		dir = req.GetPwd()
	}
	path := filepath.Join(dir, "go.mod")
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &pulumirpc.GetProgramDependenciesResponse{}, nil
	} else if err != nil {
		return nil, err
	}
	gomod, err := modfile.ParseLax(path, raw, nil)
	if err != nil {
		return nil, fmt.Errorf("could not parse %s: %w", path, err)
	}
	response := &pulumirpc.GetProgramDependenciesResponse{}
	for _, require := range gomod.Require {
		if req.GetTransitiveDependencies() || !require.Indirect {
			response.Dependencies = append(response.Dependencies,
				&pulumirpc.DependencyInfo{Name: require.Mod.Path, Version: require.Mod.Version})
		}
	}
	return response, nil
}

// Cancel is a no-op: a running program is stopped through the cancellation of its Run call.
func (h *languageHost) Cancel(context.Context, *emptypb.Empty) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

// Run builds the program (unless Pulumi.yaml names a prebuilt binary) and runs it once, to completion. As in
// ../langhost, a program failure is reported in RunResponse; a gRPC error means the host itself failed.
func (h *languageHost) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	options, err := parseRuntimeOptions(req.GetInfo().GetOptions())
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}

	binary := options.binary
	if binary != "" {
		if !filepath.IsAbs(binary) {
			binary = filepath.Join(programDirectory(req), binary)
		}
	} else {
		buildDir, err := os.MkdirTemp("", "pulumi-go-program-")
		if err != nil {
			return nil, fmt.Errorf("could not create a directory for the program's binary: %w", err)
		}
		defer os.RemoveAll(buildDir)
		binary = filepath.Join(buildDir, "program")
		if message := buildProgram(ctx, req, binary); message != "" {
			return &pulumirpc.RunResponse{Error: message}, nil
		}
	}

	h.mu.Lock()
	engineAddress := h.engineAddress
	h.mu.Unlock()
	env, err := programEnvironment(req, engineAddress)
	if err != nil {
		return nil, err
	}

	cmd := exec.CommandContext(ctx, binary, req.GetArgs()...)
	cmd.Dir = req.GetPwd()
	cmd.Env = env
	// The engine shows our stdout and stderr as the program's output.
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	// On cancellation, let the Go SDK shut down cleanly first, then kill it.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGINT) }
	cmd.WaitDelay = 10 * time.Second
	return runResponse(cmd.Run(), binary), nil
}

// runResponse maps how the program ended to what the engine expects: exit code 32 means the Go SDK has already
// logged the error through the engine (pulumi.Run's constant.ExitStatusLoggedError), so the engine should stop
// without printing more (a "bail").
func runResponse(err error, binary string) *pulumirpc.RunResponse {
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return &pulumirpc.RunResponse{}
	case errors.As(err, &exitErr) && exitErr.ExitCode() == constant.ExitStatusLoggedError:
		return &pulumirpc.RunResponse{Bail: true}
	case errors.As(err, &exitErr) && exitErr.ExitCode() >= 0:
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("Program exited with non-zero exit code: %d", exitErr.ExitCode())}
	case errors.As(err, &exitErr):
		return &pulumirpc.RunResponse{Error: "Program exited unexpectedly: " + exitErr.Error()}
	default:
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("could not run the program %s: %v", binary, err)}
	}
}

// buildProgram runs `go build -o binary <entry point>` in the program directory, with the compiler's messages on
// our stderr (the engine shows them). It returns "" on success, else the error to report.
func buildProgram(ctx context.Context, req *pulumirpc.RunRequest, binary string) string {
	goTool, err := findGo()
	if err != nil {
		return err.Error()
	}
	cmd := exec.CommandContext(ctx, goTool, "build", "-o", binary, buildTarget(req))
	cmd.Dir = programDirectory(req)
	cmd.Stdout = os.Stderr
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Sprintf("could not build the Go program in %s (`go build` failed: %v)", cmd.Dir, err)
	}
	return ""
}

// programDirectory is where Pulumi.yaml's `main` points (the directory holding go.mod, normally).
func programDirectory(req *pulumirpc.RunRequest) string {
	if dir := req.GetInfo().GetProgramDirectory(); dir != "" {
		return dir
	}
	return req.GetPwd()
}

// buildTarget is the package to build, relative to the program directory: "." unless the engine names another
// entry point (a Go program's entry point is a package directory).
func buildTarget(req *pulumirpc.RunRequest) string {
	entry := req.GetInfo().GetEntryPoint()
	if entry == "" || entry == "." {
		return "."
	}
	if filepath.IsAbs(entry) {
		return entry
	}
	return "./" + filepath.ToSlash(filepath.Clean(entry))
}

// programEnvironment is our environment plus the variables the Go SDK's pulumi.Run reads (sdk/v3/go/pulumi/
// run.go, getEnvInfo), each replacing any value inherited from our own environment.
func programEnvironment(req *pulumirpc.RunRequest, engineAddress string) ([]string, error) {
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
		"PULUMI_MONITOR":            req.GetMonitorAddress(),
		"PULUMI_ENGINE":             engineAddress,
		"PULUMI_ORGANIZATION":       req.GetOrganization(),
		"PULUMI_PROJECT":            req.GetProject(),
		"PULUMI_STACK":              req.GetStack(),
		"PULUMI_ROOT_DIRECTORY":     req.GetInfo().GetRootDirectory(),
		"PULUMI_CONFIG":             string(configJSON),
		"PULUMI_CONFIG_SECRET_KEYS": string(secretKeysJSON),
		"PULUMI_DRY_RUN":            strconv.FormatBool(req.GetDryRun()),
		"PULUMI_PARALLEL":           strconv.Itoa(int(req.GetParallel())),
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

// runtimeOptions are the `runtime.options` of Pulumi.yaml this host understands (the upstream names).
type runtimeOptions struct {
	binary string // a prebuilt program binary, relative to the program directory; "" builds with `go build`
}

func parseRuntimeOptions(options *structpb.Struct) (runtimeOptions, error) {
	parsed := runtimeOptions{}
	for name, value := range options.GetFields() {
		if name == "binary" {
			s, ok := value.GetKind().(*structpb.Value_StringValue)
			if !ok {
				return parsed, errors.New("Pulumi.yaml: runtime option `binary` must be a path")
			}
			parsed.binary = s.StringValue
		}
	}
	return parsed, nil
}

// findGo finds the `go` command: on PATH, else in its usual install directory (a fresh CI shell may lack it).
func findGo() (string, error) {
	if goTool, err := exec.LookPath("go"); err == nil {
		return goTool, nil
	}
	if info, err := os.Stat("/usr/local/go/bin/go"); err == nil && !info.IsDir() {
		return "/usr/local/go/bin/go", nil
	}
	return "", errors.New("could not find `go` on PATH: install Go (https://go.dev/dl) to run Go programs")
}
