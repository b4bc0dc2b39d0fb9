// Command pulumi-language-python is a minimal Python language host for the Pulumi engine, written for this
// project.
//
// Why it exists, and what it shares with the other hosts (the plugin protocol, the calls every host answers
// alike, code generation): ../../internal/host.
//
// How it works: `Run` starts Python on upstream's own runner script, pulumi-language-python-exec (from the sdk/v3
// module, installed beside this binary by scripts/build-engine.sh), with the command line that script parses
// (--monitor, --engine, --project, --stack, --pwd, --dry_run, --parallel, ...; then the program) and the
// configuration in PULUMI_CONFIG / PULUMI_CONFIG_SECRET_KEYS. The runner configures the `pulumi` package (the real
// one from the Python package index, installed in the program's environment) and runs the program, which from
// then on talks to the engine's resource monitor directly, exactly as under the upstream host.
//
// Which Python: Pulumi.yaml's `runtime.options.virtualenv` (a virtual environment's directory, relative to the
// program directory), else the active virtual environment ($VIRTUAL_ENV), else `python3` on PATH.
//
// It also generates code with upstream's generator (codegen.go): the Python SDK of a schema (`pulumi package
// gen-sdk --language python`, which `npm run sdks` uses) and the Python `pulumi import` prints.
//
// What it deliberately does not do: create virtual environments or run pip (scripts/python-env.sh does, or the
// user), discover plugins from installed packages, use poetry or uv, pack SDKs, or attach a debugger.
package main

import (
	"bufio"
	"context"
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

const name = "pulumi-language-python"

// runnerOverrideEnv lets a test point the host at another runner script.
const runnerOverrideEnv = "PULUMI_LANGUAGE_PYTHON_EXEC_PATH"

func main() {
	host.Serve(name, func(flags host.Flags) pulumirpc.LanguageRuntimeServer {
		return &languageHost{
			Base:    host.NewBase(name, version, "not installing anything; `pip install -r requirements.txt` yourself", flags),
			tracing: flags.Tracing,
		}
	})
}

// languageHost implements pulumirpc.LanguageRuntimeServer for Python programs.
type languageHost struct {
	*host.Base

	tracing string // tracing endpoint from the command line, or ""
}

func (h *languageHost) About(_ context.Context, req *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	options, err := parseRuntimeOptions(req.GetInfo().GetOptions())
	if err != nil {
		return nil, err
	}
	python, err := findPython(options, req.GetInfo().GetProgramDirectory())
	if err != nil {
		return nil, err
	}
	return host.About(python, "Python ", "--version")
}

// GetProgramDependencies lists the requirements.txt lines of the program (as written: resolving them is pip's job).
func (h *languageHost) GetProgramDependencies(
	_ context.Context, req *pulumirpc.GetProgramDependenciesRequest,
) (*pulumirpc.GetProgramDependenciesResponse, error) {
	path := filepath.Join(host.ProgramDirectory(req.GetInfo(), req.GetPwd()), "requirements.txt")
	file, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return &pulumirpc.GetProgramDependenciesResponse{}, nil
	} else if err != nil {
		return nil, err
	}
	defer file.Close()
	return &pulumirpc.GetProgramDependenciesResponse{Dependencies: parseRequirements(file)}, nil
}

// parseRequirements reads "name<spec>" lines, skipping comments, options (-r, -e, --...) and blank lines.
func parseRequirements(file *os.File) []*pulumirpc.DependencyInfo {
	var dependencies []*pulumirpc.DependencyInfo
	scanner := bufio.NewScanner(file)
	for scanner.Scan() {
		line, _, _ := strings.Cut(scanner.Text(), "#")
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "-") {
			continue
		}
		cut := strings.IndexAny(line, "<>=!~; [")
		if cut < 0 {
			dependencies = append(dependencies, &pulumirpc.DependencyInfo{Name: line})
			continue
		}
		dependencies = append(dependencies, &pulumirpc.DependencyInfo{
			Name: strings.TrimSpace(line[:cut]), Version: strings.TrimSpace(line[cut:]),
		})
	}
	return dependencies
}

// Run executes the program once, to completion, and reports how it ended.
func (h *languageHost) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	programDir := host.ProgramDirectory(req.GetInfo(), req.GetPwd())
	options, err := parseRuntimeOptions(req.GetInfo().GetOptions())
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	python, err := findPython(options, programDir)
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	runner, err := locateRunner()
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	env, err := programEnvironment(req, python)
	if err != nil {
		return nil, err
	}

	cmd := exec.CommandContext(ctx, python, runArguments(req, runner, h.EngineAddress(), h.tracing)...)
	cmd.Dir = programDir
	cmd.Env = env
	return host.RunProgram(cmd), nil
}

// runArguments builds `-u <runner> --flag value... <program> [program args]`, the command line
// pulumi-language-python-exec parses with argparse. --parallel is always given: the runner converts it with int().
func runArguments(req *pulumirpc.RunRequest, runner, engineAddress, tracing string) []string {
	args := []string{"-u", runner}
	withValue := func(name, value string) {
		if value != "" {
			args = append(args, "--"+name, value)
		}
	}
	withValue("monitor", req.GetMonitorAddress())
	withValue("engine", engineAddress)
	withValue("organization", req.GetOrganization())
	withValue("project", req.GetProject())
	withValue("stack", req.GetStack())
	withValue("root_directory", req.GetInfo().GetRootDirectory())
	withValue("pwd", req.GetPwd())
	withValue("dry_run", strconv.FormatBool(req.GetDryRun()))
	withValue("parallel", strconv.Itoa(int(req.GetParallel())))
	withValue("tracing", tracing)
	args = append(args, entryPoint(req))
	return append(args, req.GetArgs()...)
}

// entryPoint is the program the runner runs with runpy.run_path: a file, or a directory holding __main__.py ("."
// by default), relative to the program directory (the runner's working directory until it switches to --pwd).
func entryPoint(req *pulumirpc.RunRequest) string {
	entry := req.GetInfo().GetEntryPoint()
	if entry == "" {
		entry = req.GetProgram() //nolint:staticcheck // older engines send only the deprecated field
	}
	if entry == "" {
		return "."
	}
	return entry
}

// programEnvironment is our environment plus the stack's configuration and, for a virtual environment's Python,
// that environment activated (VIRTUAL_ENV, its bin/ first on PATH) so subprocesses of the program find it too.
func programEnvironment(req *pulumirpc.RunRequest, python string) ([]string, error) {
	ours, err := host.ConfigEnvironment(req)
	if err != nil {
		return nil, err
	}
	ours["PYTHONUNBUFFERED"] = "1"
	bin := filepath.Dir(python)
	if venv := filepath.Dir(bin); isVirtualEnvironment(venv) {
		ours["VIRTUAL_ENV"] = venv
		ours["PATH"] = bin + string(os.PathListSeparator) + os.Getenv("PATH")
		ours["PYTHONHOME"] = "" // a PYTHONHOME would make the venv's python load another installation
	}
	env := host.Environment(ours)
	kept := env[:0]
	for _, entry := range env {
		if entry != "PYTHONHOME=" {
			kept = append(kept, entry)
		}
	}
	return kept, nil
}

// isVirtualEnvironment tells whether dir is a virtual environment (it has the pyvenv.cfg `python -m venv` writes).
func isVirtualEnvironment(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "pyvenv.cfg"))
	return err == nil
}

// runtimeOptions are the `runtime.options` of Pulumi.yaml this host understands (the upstream names).
type runtimeOptions struct {
	virtualenv string // a virtual environment's directory, relative to the program directory, or ""
}

func parseRuntimeOptions(options *structpb.Struct) (runtimeOptions, error) {
	parsed := runtimeOptions{}
	for name, value := range options.GetFields() {
		switch name {
		case "virtualenv":
			s, ok := value.GetKind().(*structpb.Value_StringValue)
			if !ok {
				return parsed, errors.New("Pulumi.yaml: runtime option `virtualenv` must be a directory path")
			}
			parsed.virtualenv = s.StringValue
		case "toolchain":
			if value.GetStringValue() != "pip" {
				return parsed, fmt.Errorf(
					"Pulumi.yaml: runtime option `toolchain: %s` is not supported by this host (only pip)",
					value.GetStringValue())
			}
		}
	}
	return parsed, nil
}

// findPython is the Python to run: the configured virtual environment's, else the active one's, else python3.
func findPython(options runtimeOptions, programDir string) (string, error) {
	venv := options.virtualenv
	if venv != "" && !filepath.IsAbs(venv) {
		venv = filepath.Join(programDir, venv)
	}
	if venv == "" {
		venv = os.Getenv("VIRTUAL_ENV")
	}
	if venv != "" {
		python := filepath.Join(venv, "bin", "python")
		if _, err := os.Stat(python); err != nil {
			return "", fmt.Errorf("the virtual environment %s has no bin/python: create it with `python3 -m venv %s` "+
				"and `pip install -r requirements.txt` in it", venv, venv)
		}
		return python, nil
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		return "", errors.New("could not find `python3` on PATH: install Python 3.9 or later, or set " +
			"runtime.options.virtualenv in Pulumi.yaml")
	}
	return python, nil
}

// locateRunner finds pulumi-language-python-exec beside this binary (where build-engine.sh installs it).
func locateRunner() (string, error) {
	if override := os.Getenv(runnerOverrideEnv); override != "" {
		return override, nil
	}
	executable, err := os.Executable()
	if err != nil {
		return "", err
	}
	runner := filepath.Join(filepath.Dir(executable), "pulumi-language-python-exec")
	if _, err := os.Stat(runner); err != nil {
		return "", fmt.Errorf("the program runner %s is missing: run scripts/build-engine.sh again", runner)
	}
	return runner, nil
}
