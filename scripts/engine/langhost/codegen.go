// Code generation for the engine: `pulumi package gen-sdk --language nodejs` (GeneratePackage) and the TypeScript
// that `pulumi import` prints (GenerateProgram). Both are upstream's generator, pkg/v3/codegen/nodejs, called the
// way upstream's host calls it; this file only unpacks the request, binds it against the engine's schema loader
// (the gRPC server at the request's loader_target, which resolves any package the schema or program refers to),
// and packs the answer.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/pulumi/pulumi/pkg/v3/codegen/hcl2/syntax"
	codegen "github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// generatorName is what generated files name as their generator ("Do not edit by hand" headers).
const generatorName = "pulumi-language-nodejs"

// GeneratePackage writes the Node.js SDK of the package in req.Schema into req.Directory (which the CLI has just
// emptied). Schema errors come back as diagnostics, which the CLI prints with their location.
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
	files, err := codegen.GeneratePackage(
		generatorName, pkg, req.GetExtraFiles(), req.GetLocalDependencies(), req.GetLocal(), loader)
	if err != nil {
		return nil, fmt.Errorf("could not generate the Node.js SDK of %s: %w", pkg.Name, err)
	}
	if err := writeFiles(req.GetDirectory(), files); err != nil {
		return nil, err
	}
	return &pulumirpc.GeneratePackageResponse{Diagnostics: plugin.HclDiagnosticsToRPCDiagnostics(diags)}, nil
}

// GenerateProgram turns a PCL program (`pulumi import` writes one for the resources it imported) into TypeScript.
// The CLI asks for a lenient bind (strict false) because the imported code may refer to parents and providers it
// does not declare.
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
		return nil, fmt.Errorf("could not generate TypeScript from the program: %w", err)
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
