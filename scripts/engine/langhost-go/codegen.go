// Code generation for the engine: `pulumi package gen-sdk --language go` (GeneratePackage) and the Go that
// `pulumi import` prints for a Go project (GenerateProgram), both by upstream's generator pkg/v3/codegen/go. The
// request handling mirrors ../langhost/codegen.go (bindPackage, bindProgram and writeFiles are the same code: two
// small Go modules cannot share a file without a third module, which would cost more than these 60 lines).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	codegen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/hcl2/syntax"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"golang.org/x/mod/modfile"
)

// generatorName is what generated files name as their generator ("Do not edit by hand" headers).
const generatorName = "pulumi-language-go"

// GeneratePackage writes the Go SDK of the package in req.Schema into req.Directory (which the CLI has just
// emptied): the package's directory (the last element of language.go.importBasePath) and a go.mod beside it.
func (h *languageHost) GeneratePackage(
	_ context.Context, req *pulumirpc.GeneratePackageRequest,
) (*pulumirpc.GeneratePackageResponse, error) {
	loader, err := schema.NewLoaderClient(req.GetLoaderTarget())
	if err != nil {
		return nil, fmt.Errorf("could not reach the engine's schema loader: %w", err)
	}
	defer loader.Close()

	pkg, diags, err := bindPackage(req.GetSchema(), loader)
	if err != nil || diags.HasErrors() {
		return &pulumirpc.GeneratePackageResponse{Diagnostics: plugin.HclDiagnosticsToRPCDiagnostics(diags)}, err
	}
	files, err := codegen.GeneratePackage(generatorName, pkg, req.GetLocalDependencies())
	if err != nil {
		return nil, fmt.Errorf("could not generate the Go SDK of %s: %w", pkg.Name, err)
	}
	for name, contents := range req.GetExtraFiles() {
		files[name] = contents
	}
	if _, ok := files["go.mod"]; !ok {
		if files["go.mod"], err = goModFile(pkg, req.GetLocalDependencies()); err != nil {
			return nil, err
		}
	}
	if err := writeFiles(req.GetDirectory(), files); err != nil {
		return nil, err
	}
	return &pulumirpc.GeneratePackageResponse{Diagnostics: plugin.HclDiagnosticsToRPCDiagnostics(diags)}, nil
}

// goModFile is the go.mod that makes the generated directory a module programs can `require` (or `replace` with a
// local path). The generator writes one itself only for schemas with meta.supportPack; this one follows the same
// rule for the module path (language.go.modulePath, else the import base path's parent, which is where the
// generated package directory sits) so both cases give the same module. It requires the Go SDK of the engine this
// host was built for.
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
	sdkVersion := version
	if !strings.HasPrefix(sdkVersion, "v3.") {
		sdkVersion = "v3.30.0" // a development build: the generator's own minimum
	}

	var gomod modfile.File
	const sdkModule = "github.com/pulumi/pulumi/sdk/v3"
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

// GenerateProgram turns a PCL program (`pulumi import` writes one for the resources it imported) into Go.
func (h *languageHost) GenerateProgram(
	_ context.Context, req *pulumirpc.GenerateProgramRequest,
) (*pulumirpc.GenerateProgramResponse, error) {
	loader, err := schema.NewLoaderClient(req.GetLoaderTarget())
	if err != nil {
		return nil, fmt.Errorf("could not reach the engine's schema loader: %w", err)
	}
	defer loader.Close()

	program, diags, err := bindProgram(req.GetSource(), loader, req.GetStrict())
	if err != nil || diags.HasErrors() {
		return &pulumirpc.GenerateProgramResponse{Diagnostics: plugin.HclDiagnosticsToRPCDiagnostics(diags)}, err
	}
	files, genDiags, err := codegen.GenerateProgram(program)
	diags = append(diags, genDiags...)
	if err != nil {
		return nil, fmt.Errorf("could not generate Go from the program: %w", err)
	}
	return &pulumirpc.GenerateProgramResponse{
		Source:      files,
		Diagnostics: plugin.HclDiagnosticsToRPCDiagnostics(diags),
	}, nil
}

// bindPackage parses and validates a package schema (JSON, as the CLI sends it). References to other packages are
// resolved through the loader; one that cannot be resolved is left dangling rather than failing the whole SDK,
// as upstream does.
func bindPackage(schemaJSON string, loader schema.ReferenceLoader) (*schema.Package, hcl.Diagnostics, error) {
	var spec schema.PackageSpec
	if err := json.Unmarshal([]byte(schemaJSON), &spec); err != nil {
		return nil, nil, fmt.Errorf("the engine sent a schema that is not valid JSON: %w", err)
	}
	pkg, diags, err := schema.BindSpec(spec, loader, schema.ValidationOptions{AllowDanglingReferences: true})
	if err != nil {
		return nil, diags, fmt.Errorf("could not bind the schema of %s: %w", spec.Name, err)
	}
	return pkg, diags, nil
}

// bindProgram parses the program's .pp files (in name order, so diagnostics come out the same way every time) and
// binds them against the schemas the loader provides.
func bindProgram(
	source map[string]string, loader schema.ReferenceLoader, strict bool,
) (*pcl.Program, hcl.Diagnostics, error) {
	names := make([]string, 0, len(source))
	for name := range source {
		names = append(names, name)
	}
	sort.Strings(names)
	parser := syntax.NewParser()
	for _, name := range names {
		if err := parser.ParseFile(strings.NewReader(source[name]), name); err != nil {
			return nil, nil, fmt.Errorf("could not parse %s: %w", name, err)
		}
	}
	if parser.Diagnostics.HasErrors() {
		return nil, parser.Diagnostics, nil
	}

	var options []pcl.BindOption
	if !strict {
		options = pcl.NonStrictBindOptions()
	}
	program, diags, err := pcl.BindProgram(parser.Files, schema.NewCachedLoader(loader), options...)
	diags = append(parser.Diagnostics, diags...)
	if err != nil {
		return nil, diags, fmt.Errorf("could not bind the program: %w", err)
	}
	if program == nil && !diags.HasErrors() {
		return nil, diags, errors.New("binding the program produced neither a program nor an error")
	}
	return program, diags, nil
}

// writeFiles writes generated files (paths relative to dir, with forward slashes) under dir.
func writeFiles(dir string, files map[string][]byte) error {
	if dir == "" {
		return errors.New("the engine sent no output directory")
	}
	for name, contents := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, contents, 0o644); err != nil {
			return err
		}
	}
	return nil
}
