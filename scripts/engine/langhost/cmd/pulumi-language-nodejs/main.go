// Command pulumi-language-nodejs is a minimal Node.js language host for the Pulumi engine, written for this
// project.
//
// Why it exists, and what it shares with the other hosts (the plugin protocol, the calls every host answers
// alike, code generation): ../../internal/host.
//
// How it works: `Run` starts `node` on the Node SDK's own entry script
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
// calls answer "none", a no-op, or Unimplemented. Of the plugins a Node.js directory can hold, it runs policy packs
// (RunPlugin, plugin.go), not resource plugins.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/structpb"

	"pulumi-platform/engine/langhost/internal/host"
)

// version is set at build time (-ldflags "-X main.version=vX.Y.Z") to the Pulumi version it pairs with.
var version = "v0.0.0-dev"

// runScriptOverrideEnv lets a test point the host at another cmd/run script, like the upstream host allows.
const runScriptOverrideEnv = "PULUMI_LANGUAGE_NODEJS_RUN_PATH"

func main() {
	host.Serve(name, func(flags host.Flags) pulumirpc.LanguageRuntimeServer {
		node, err := exec.LookPath("node")
		if err != nil {
			host.Fail(name, "could not find `node` on PATH: install Node.js 20 or later")
		}
		return &languageHost{
			Base:    host.NewBase(name, version, "not installing anything; run `npm install` yourself", flags),
			node:    node,
			tracing: flags.Tracing,
		}
	})
}

const name = "pulumi-language-nodejs"

// languageHost implements pulumirpc.LanguageRuntimeServer for Node.js programs.
type languageHost struct {
	*host.Base

	node    string // absolute path of the `node` executable
	tracing string // tracing endpoint from the command line, or ""
}

func (h *languageHost) About(context.Context, *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	return host.About(h.node, "v", "--version")
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

	cmd := exec.CommandContext(ctx, h.node, runArguments(req, options, runScript, h.EngineAddress(), h.tracing)...)
	cmd.Dir = req.GetPwd()
	cmd.Env = env
	return host.RunProgram(cmd), nil
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
	ours, err := host.ConfigEnvironment(req)
	if err != nil {
		return nil, err
	}
	ours["PULUMI_NODEJS_TYPESCRIPT"] = strconv.FormatBool(options.typescript)
	if options.tsconfig != "" {
		ours["PULUMI_NODEJS_TSCONFIG_PATH"] = options.tsconfig
	}
	// Through NODE_OPTIONS rather than `node --require`: cmd/run turns off its automatic ESM mode when it sees
	// --require in process.execArgv, and NODE_OPTIONS does not show there.
	if preload := preloadScript(); preload != "" {
		ours["NODE_OPTIONS"] = strings.TrimSpace(os.Getenv("NODE_OPTIONS") + ` --require "` + preload + `"`)
	}
	return host.Environment(ours), nil
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
	return locateSDKScript(programDir, "run")
}
