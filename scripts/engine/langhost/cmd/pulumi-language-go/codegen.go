// Code generation for the engine: `pulumi package gen-sdk --language go` (GeneratePackage) and the Go that
// `pulumi import` prints for a Go project (GenerateProgram), both by upstream's generator pkg/v3/codegen/go. The
// request handling mirrors ../langhost/codegen.go (bindPackage, bindProgram and writeFiles are the same code: two
// small Go modules cannot share a file without a third module, which would cost more than these 60 lines).
package main

import (
	"context"
	"fmt"
	"path"
	"runtime/debug"
	"strings"

	"github.com/hashicorp/hcl/v2"
	codegen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"golang.org/x/mod/modfile"

	"pulumi-platform/engine/langhost/internal/host"
)

var generator = host.Generator{
	Language: "Go",
	// The package's directory (the last element of language.go.importBasePath) and a go.mod beside it.
	Package: func(
		pkg *schema.Package, req *pulumirpc.GeneratePackageRequest, _ schema.ReferenceLoader,
	) (map[string][]byte, error) {
		files, err := codegen.GeneratePackage(name, pkg, req.GetLocalDependencies())
		if err != nil {
			return nil, err
		}
		for name, contents := range req.GetExtraFiles() {
			files[name] = contents
		}
		if _, ok := files["go.mod"]; !ok {
			if files["go.mod"], err = goModFile(pkg, req.GetLocalDependencies()); err != nil {
				return nil, err
			}
		}
		return files, nil
	},
	Program: func(program *pcl.Program) (map[string][]byte, hcl.Diagnostics, error) {
		return codegen.GenerateProgram(program)
	},
}

func (h *languageHost) GeneratePackage(
	ctx context.Context, req *pulumirpc.GeneratePackageRequest,
) (*pulumirpc.GeneratePackageResponse, error) {
	return generator.GeneratePackage(ctx, req)
}

func (h *languageHost) GenerateProgram(
	ctx context.Context, req *pulumirpc.GenerateProgramRequest,
) (*pulumirpc.GenerateProgramResponse, error) {
	return generator.GenerateProgram(ctx, req)
}

// sdkModule is the Go SDK's module path.
const sdkModule = "github.com/pulumi/pulumi/sdk/v3"

// linkedSDKVersion is the version of the Go SDK this host is built against: scripts/engine/langhost/go.mod pins it
// to the oldest Pulumi the packages support, and the generator's code is written for it. A generated go.mod requires
// it as a minimum (as go.mod's requirements are), so a program on any newer 3.x keeps one copy, and the generated
// SDK is the same whichever engine ran the generator.
func linkedSDKVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == sdkModule && strings.HasPrefix(dep.Version, "v3.") {
				return dep.Version
			}
		}
	}
	return "v3.30.0" // no build information: the generator's own minimum
}

// goModFile is the go.mod that makes the generated directory a module programs can `require` (or `replace` with a
// local path). The generator writes one itself only for schemas with meta.supportPack; this one follows the same
// rule for the module path (language.go.modulePath, else the import base path's parent, which is where the
// generated package directory sits) so both cases give the same module. It requires the Go SDK this host is built
// against (linkedSDKVersion), whichever engine runs it.
func goModFile(pkg *schema.Package, localDependencies map[string]string) ([]byte, error) {
	info, _ := pkg.Language["go"].(codegen.GoPackageInfo) // set by codegen.GeneratePackage
	modulePath := info.ModulePath
	if modulePath == "" {
		importBase := info.ImportBasePath
		if importBase == "" {
			importBase = codegen.ExtractImportBasePath(pkg.Reference())
		}
		modulePath = path.Dir(importBase)
	}
	sdkVersion := linkedSDKVersion()

	var gomod modfile.File
	if err := gomod.AddModuleStmt(modulePath); err != nil {
		return nil, fmt.Errorf("invalid Go module path %q for the generated SDK: %w", modulePath, err)
	}
	if err := gomod.AddGoStmt("1.25"); err != nil {
		return nil, err
	}
	if err := gomod.AddRequire(sdkModule, sdkVersion); err != nil {
		return nil, err
	}
	if local, ok := localDependencies["pulumi"]; ok {
		if err := gomod.AddReplace(sdkModule, "", local, ""); err != nil {
			return nil, err
		}
	}
	return gomod.Format()
}
