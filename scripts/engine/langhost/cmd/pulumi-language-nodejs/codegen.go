// Code generation: the TypeScript SDK of a schema (`pulumi package gen-sdk --language nodejs`, which `npm run sdks`
// uses) and the TypeScript `pulumi import` prints, both by upstream's generator pkg/v3/codegen/nodejs, called the
// way upstream's host calls it (the request handling is ../../internal/host/codegen.go).
package main

import (
	"context"

	"github.com/hashicorp/hcl/v2"
	codegen "github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"

	"pulumi-platform/engine/langhost/internal/host"
)

var generator = host.Generator{
	Language: "TypeScript",
	Package: func(
		pkg *schema.Package, req *pulumirpc.GeneratePackageRequest, loader schema.ReferenceLoader,
	) (map[string][]byte, error) {
		return codegen.GeneratePackage(
			name, pkg, req.GetExtraFiles(), req.GetLocalDependencies(), req.GetLocal(), loader)
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
