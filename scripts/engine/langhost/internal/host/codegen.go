// Code generation for the engine: `pulumi package gen-sdk --language <lang>` (GeneratePackage) and the code
// `pulumi import` prints (GenerateProgram). The generators are upstream's (pkg/v3/codegen/<lang>), called the way
// upstream's hosts call them; this file only unpacks the request, binds it against the engine's schema loader (the
// gRPC server at the request's loader_target, which resolves any package the schema or program refers to), and
// packs the answer.
package host

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
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// Generator is one language's code generation.
type Generator struct {
	Language string // for messages: "TypeScript", "Go", "Python"
	// Package returns the files of the SDK of pkg (paths relative to the output directory, forward slashes).
	Package func(pkg *schema.Package, req *pulumirpc.GeneratePackageRequest, loader schema.ReferenceLoader) (
		map[string][]byte, error)
	// Program returns the files of a bound PCL program in the language.
	Program func(program *pcl.Program) (map[string][]byte, hcl.Diagnostics, error)
}

// GeneratePackage writes the SDK of the package in req.Schema into req.Directory (which the CLI has just emptied).
// Schema errors come back as diagnostics, which the CLI prints with their location.
func (g Generator) GeneratePackage(
	_ context.Context, req *pulumirpc.GeneratePackageRequest,
) (*pulumirpc.GeneratePackageResponse, error) {
	loader, err := schema.NewLoaderClient(req.GetLoaderTarget())
	if err != nil {
		return nil, fmt.Errorf("could not reach the engine's schema loader: %w", err)
	}
	defer loader.Close()

	pkg, diags, err := BindPackage(req.GetSchema(), loader)
	if err != nil || diags.HasErrors() {
		return &pulumirpc.GeneratePackageResponse{Diagnostics: plugin.HclDiagnosticsToRPCDiagnostics(diags)}, err
	}
	files, err := g.Package(pkg, req, loader)
	if err != nil {
		return nil, fmt.Errorf("could not generate the %s SDK of %s: %w", g.Language, pkg.Name, err)
	}
	if err := WriteFiles(req.GetDirectory(), files); err != nil {
		return nil, err
	}
	return &pulumirpc.GeneratePackageResponse{Diagnostics: plugin.HclDiagnosticsToRPCDiagnostics(diags)}, nil
}

// GenerateProgram turns a PCL program (`pulumi import` writes one for the resources it imported) into the
// language. The CLI asks for a lenient bind (strict false) because the imported code may refer to parents and
// providers it does not declare.
func (g Generator) GenerateProgram(
	_ context.Context, req *pulumirpc.GenerateProgramRequest,
) (*pulumirpc.GenerateProgramResponse, error) {
	loader, err := schema.NewLoaderClient(req.GetLoaderTarget())
	if err != nil {
		return nil, fmt.Errorf("could not reach the engine's schema loader: %w", err)
	}
	defer loader.Close()

	program, diags, err := BindProgram(req.GetSource(), loader, req.GetStrict())
	if err != nil || diags.HasErrors() {
		return &pulumirpc.GenerateProgramResponse{Diagnostics: plugin.HclDiagnosticsToRPCDiagnostics(diags)}, err
	}
	files, genDiags, err := g.Program(program)
	diags = append(diags, genDiags...)
	if err != nil {
		return nil, fmt.Errorf("could not generate %s from the program: %w", g.Language, err)
	}
	return &pulumirpc.GenerateProgramResponse{
		Source:      files,
		Diagnostics: plugin.HclDiagnosticsToRPCDiagnostics(diags),
	}, nil
}

// BindPackage parses and validates a package schema (JSON, as the CLI sends it). References to other packages are
// resolved through the loader; one that cannot be resolved is left dangling rather than failing the whole SDK,
// as upstream does.
func BindPackage(schemaJSON string, loader schema.ReferenceLoader) (*schema.Package, hcl.Diagnostics, error) {
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

// BindProgram parses the program's .pp files (in name order, so diagnostics come out the same way every time) and
// binds them against the schemas the loader provides.
func BindProgram(
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

// WriteFiles writes generated files (paths relative to dir, with forward slashes) under dir.
func WriteFiles(dir string, files map[string][]byte) error {
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
