// Tests of the code-generation calls through their gRPC contract, with the harness of ../../internal/hosttest.
// Under the real CLI: test/e2e/native-sdks.e2e.test.ts.
package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"

	"pulumi-platform/engine/langhost/internal/hosttest"
)

func TestGeneratePackageWritesATypedPythonPackage(t *testing.T) {
	dir := t.TempDir()
	response, err := (&languageHost{}).GeneratePackage(context.Background(), &pulumirpc.GeneratePackageRequest{
		Directory: dir, Schema: hosttest.Schema, LoaderTarget: hosttest.ServeLoader(t),
	})
	if err != nil || len(response.GetDiagnostics()) > 0 {
		t.Fatalf("GeneratePackage: %v, diagnostics %v", err, response.GetDiagnostics())
	}

	thing := hosttest.ReadGenerated(t, dir, "test_native/thing.py")
	if !strings.Contains(thing, "class Thing(pulumi.CustomResource):") {
		t.Errorf("test_native/thing.py lacks the resource class:\n%s", thing)
	}
	if _, err := os.Stat(filepath.Join(dir, "test_native", "py.typed")); err != nil {
		t.Errorf("the package is not marked as typed (py.typed): %v", err)
	}
}

func TestGenerateProgramWritesPython(t *testing.T) {
	response, err := (&languageHost{}).GenerateProgram(context.Background(), &pulumirpc.GenerateProgramRequest{
		Source: map[string]string{"main.pp": hosttest.Program}, LoaderTarget: hosttest.ServeLoader(t),
	})
	if err != nil || len(response.GetDiagnostics()) > 0 {
		t.Fatalf("GenerateProgram: %v, diagnostics %v", err, response.GetDiagnostics())
	}

	main := string(response.GetSource()["__main__.py"])
	for _, want := range []string{"import pulumi", "config = pulumi.Config()", `pulumi.export("message", `} {
		if !strings.Contains(main, want) {
			t.Errorf("__main__.py lacks %q:\n%s", want, main)
		}
	}
}
