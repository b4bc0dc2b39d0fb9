// Link: the last step of `pulumi package add` (and of `pulumi convert`), which has just generated an SDK into the
// program's directory. Like upstream, it makes the program depend on that local SDK; unlike upstream, it does not
// install it (this host never runs a package manager's install: the machine may be offline), so the instructions
// say to run `npm install`.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"

	"pulumi-platform/engine/langhost/internal/host"
)

// Link adds `"<npm name>": "file:<sdk dir>"` to the program's package.json dependencies with `npm pkg set` (which
// keeps the file's layout) and answers the import line to use in the program.
func (h *languageHost) Link(ctx context.Context, req *pulumirpc.LinkRequest) (*pulumirpc.LinkResponse, error) {
	programDir := req.GetInfo().GetProgramDirectory()
	if programDir == "" {
		programDir = req.GetInfo().GetRootDirectory()
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return nil, fmt.Errorf("could not find `npm` on PATH to add the SDK to %s",
			filepath.Join(programDir, "package.json"))
	}

	var instructions strings.Builder
	instructions.WriteString("Run `npm install` in the program's directory, then import the SDK in your TypeScript code:\n\n")
	for _, dependency := range req.GetPackages() {
		name, err := npmPackageName(filepath.Join(programDir, dependency.GetPath()))
		if err != nil {
			return nil, err
		}
		// Bracket syntax, so a name containing a dot is not read as a nested key.
		setting := fmt.Sprintf("dependencies[%s]=file:%s", name, filepath.ToSlash(dependency.GetPath()))
		cmd := exec.CommandContext(ctx, npm, "pkg", "set", setting)
		cmd.Dir = programDir
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := host.RunChild(cmd); err != nil {
			return nil, fmt.Errorf("`npm pkg set %s` failed in %s: %w\n%s", setting, programDir, err, out.String())
		}
		fmt.Fprintf(&instructions, "  import * as %s from %q;\n",
			importIdentifier(dependency.GetPackage().GetName()), name)
	}
	return &pulumirpc.LinkResponse{ImportInstructions: instructions.String()}, nil
}

// npmPackageName is the `name` of the generated SDK's package.json (language.nodejs.packageName in its schema).
func npmPackageName(sdkDir string) (string, error) {
	raw, err := os.ReadFile(filepath.Join(sdkDir, "package.json"))
	if err != nil {
		return "", fmt.Errorf("the SDK to link has no package.json: %w", err)
	}
	var manifest struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(raw, &manifest); err != nil || manifest.Name == "" {
		return "", fmt.Errorf("could not read the package name from %s", filepath.Join(sdkDir, "package.json"))
	}
	return manifest.Name, nil
}

// importIdentifier turns a Pulumi package name ("platform", "my-pkg") into a TypeScript identifier ("myPkg").
func importIdentifier(packageName string) string {
	var identifier strings.Builder
	upper := false
	for _, r := range packageName {
		switch {
		case r == '-' || r == '_' || r == '.':
			upper = identifier.Len() > 0
		case (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9' && identifier.Len() > 0):
			if upper {
				r = []rune(strings.ToUpper(string(r)))[0]
				upper = false
			}
			identifier.WriteRune(r)
		}
	}
	if identifier.Len() == 0 {
		return "pkg"
	}
	return identifier.String()
}
