// Command pulumi-language-go is a minimal Go language host for the Pulumi engine, written for this project.
//
// Why it exists, and what it shares with the other hosts: ../../internal/host. It lets the engine run Go programs that use the SDK
// generated from schema.json (native-sdks/go) and generate that SDK (`pulumi package gen-sdk --language go`).
//
// How it works: `Run` builds the program with `go build` in its directory (the user's GOFLAGS, GOPROXY... apply: nothing here goes
// to the network on its own) into a temporary directory, then runs the binary with the variables the Go SDK reads
// (sdk/v3/go/pulumi/run.go: PULUMI_MONITOR, PULUMI_ENGINE, PULUMI_PROJECT, ...). Pulumi.yaml's
// `runtime.options.binary` names a prebuilt binary instead, as upstream allows.
//
// What it deliberately does not do: discover the plugins a program needs (they are installed explicitly), run
// `go mod download` or `go mod tidy`, attach a debugger, or pack an SDK.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"golang.org/x/mod/modfile"
	"google.golang.org/protobuf/types/known/structpb"

	"pulumi-platform/engine/langhost/internal/host"
)

// version is set at build time (-ldflags "-X main.version=vX.Y.Z") to the Pulumi version it pairs with.
var version = "v0.0.0-dev"

func main() {
	host.Serve(name, func(flags host.Flags) pulumirpc.LanguageRuntimeServer {
		return &languageHost{
			Base: host.NewBase(name, version, "not installing anything; `go build` fetches modules", flags),
		}
	})
}

const name = "pulumi-language-go"

// languageHost implements pulumirpc.LanguageRuntimeServer for Go programs.
type languageHost struct {
	*host.Base
}

func (h *languageHost) About(context.Context, *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	goTool, err := findGo()
	if err != nil {
		return nil, err
	}
	return host.About(goTool, "go", "env", "GOVERSION")
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

	env, err := programEnvironment(req, h.EngineAddress())
	if err != nil {
		return nil, err
	}

	cmd := exec.CommandContext(ctx, binary, req.GetArgs()...)
	cmd.Dir = req.GetPwd()
	cmd.Env = env
	return host.RunProgram(cmd), nil
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
	if err := host.RunChild(cmd); err != nil {
		return fmt.Sprintf("could not build the Go program in %s (`go build` failed: %v)", cmd.Dir, err)
	}
	return ""
}

// programDirectory is where Pulumi.yaml's `main` points (the directory holding go.mod, normally).
func programDirectory(req *pulumirpc.RunRequest) string {
	return host.ProgramDirectory(req.GetInfo(), req.GetPwd())
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
	ours, err := host.ConfigEnvironment(req)
	if err != nil {
		return nil, err
	}
	for name, value := range map[string]string{
		"PULUMI_MONITOR":        req.GetMonitorAddress(),
		"PULUMI_ENGINE":         engineAddress,
		"PULUMI_ORGANIZATION":   req.GetOrganization(),
		"PULUMI_PROJECT":        req.GetProject(),
		"PULUMI_STACK":          req.GetStack(),
		"PULUMI_ROOT_DIRECTORY": req.GetInfo().GetRootDirectory(),
		"PULUMI_DRY_RUN":        strconv.FormatBool(req.GetDryRun()),
		"PULUMI_PARALLEL":       strconv.Itoa(int(req.GetParallel())),
	} {
		ours[name] = value
	}
	return host.Environment(ours), nil
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
