// Tests of the code-generation calls through their gRPC contract, with the harness of ../../internal/hosttest: the
// host called as the CLI calls it, generated files checked for the names and code that show the generator really
// ran. Under the real CLI: test/e2e/native-sdks.e2e.test.ts.
package main

import (
	"context"
	"strings"
	"testing"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"

	"pulumi-platform/engine/langhost/internal/hosttest"
)

func TestGeneratePackageWritesTheGoSDKAndItsModule(t *testing.T) {
	dir := t.TempDir()
	response, err := (&languageHost{}).GeneratePackage(context.Background(), &pulumirpc.GeneratePackageRequest{
		Directory: dir, Schema: hosttest.Schema, LoaderTarget: hosttest.ServeLoader(t),
	})
	if err != nil || len(response.GetDiagnostics()) > 0 {
		t.Fatalf("GeneratePackage: %v, diagnostics %v", err, response.GetDiagnostics())
	}

	if gomod := hosttest.ReadGenerated(t, dir, "go.mod"); !strings.Contains(gomod, "module example.com/sdks/go\n") {
		t.Errorf("go.mod is not the parent module of language.go.importBasePath:\n%s", gomod)
	}
	if thing := hosttest.ReadGenerated(t, dir, "test/thing.go"); !strings.Contains(thing, "func NewThing(ctx *pulumi.Context") {
		t.Errorf("test/thing.go lacks the resource constructor:\n%s", thing)
	}
}

func TestGenerateProgramWritesGo(t *testing.T) {
	response, err := (&languageHost{}).GenerateProgram(context.Background(), &pulumirpc.GenerateProgramRequest{
		Source: map[string]string{"main.pp": hosttest.Program}, LoaderTarget: hosttest.ServeLoader(t),
	})
	if err != nil || len(response.GetDiagnostics()) > 0 {
		t.Fatalf("GenerateProgram: %v, diagnostics %v", err, response.GetDiagnostics())
	}

	main := string(response.GetSource()["main.go"])
	for _, want := range []string{`pulumi.Run(func(ctx *pulumi.Context) error {`, `ctx.Export("message", `} {
		if !strings.Contains(main, want) {
			t.Errorf("main.go lacks %q:\n%s", want, main)
		}
	}
}
