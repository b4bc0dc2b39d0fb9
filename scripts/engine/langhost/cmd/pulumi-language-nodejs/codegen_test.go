// Tests of the code-generation calls through their gRPC contract, with the harness of ../../internal/hosttest: the
// host called as the CLI calls it, generated files checked for the names and code that show the generator really
// ran. Under the real CLI: test/e2e/native-sdks.e2e.test.ts.
package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"

	"pulumi-platform/engine/langhost/internal/hosttest"
)

func TestGeneratePackageWritesTheTypeScriptSDK(t *testing.T) {
	dir := t.TempDir()
	response, err := (&languageHost{}).GeneratePackage(context.Background(), &pulumirpc.GeneratePackageRequest{
		Directory: dir, Schema: hosttest.Schema, LoaderTarget: hosttest.ServeLoader(t),
	})
	if err != nil || len(response.GetDiagnostics()) > 0 {
		t.Fatalf("GeneratePackage: %v, diagnostics %v", err, response.GetDiagnostics())
	}

	if manifest := hosttest.ReadGenerated(t, dir, "package.json"); !strings.Contains(manifest, `"name": "test-native"`) {
		t.Errorf("package.json does not name the package from language.nodejs.packageName:\n%s", manifest)
	}
	if thing := hosttest.ReadGenerated(t, dir, "thing.ts"); !strings.Contains(thing, "export class Thing extends pulumi.CustomResource") {
		t.Errorf("thing.ts lacks the resource class:\n%s", thing)
	}
}

func TestGeneratePackageReportsSchemaErrorsAsDiagnostics(t *testing.T) {
	response, err := (&languageHost{}).GeneratePackage(context.Background(), &pulumirpc.GeneratePackageRequest{
		Directory: t.TempDir(), Schema: `{"name": "test", "resources": {"not-a-token": {}}}`, LoaderTarget: hosttest.ServeLoader(t),
	})
	if err != nil {
		t.Fatalf("a schema error must come back as diagnostics, not as an RPC error: %v", err)
	}
	if len(response.GetDiagnostics()) == 0 {
		t.Error("no diagnostics for an invalid resource token")
	}
}

func TestGenerateProgramWritesTypeScript(t *testing.T) {
	response, err := (&languageHost{}).GenerateProgram(context.Background(), &pulumirpc.GenerateProgramRequest{
		Source: map[string]string{"main.pp": hosttest.Program}, LoaderTarget: hosttest.ServeLoader(t),
	})
	if err != nil || len(response.GetDiagnostics()) > 0 {
		t.Fatalf("GenerateProgram: %v, diagnostics %v", err, response.GetDiagnostics())
	}

	index := string(response.GetSource()["index.ts"])
	for _, want := range []string{`new pulumi.Config()`, `export const message = `} {
		if !strings.Contains(index, want) {
			t.Errorf("index.ts lacks %q:\n%s", want, index)
		}
	}
}

func TestLinkMakesTheProgramDependOnTheLocalSDK(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not on PATH")
	}
	program := t.TempDir()
	sdk := filepath.Join(program, "sdks", "my-pkg")
	if err := os.MkdirAll(sdk, 0o755); err != nil {
		t.Fatal(err)
	}
	for path, contents := range map[string]string{
		filepath.Join(program, "package.json"): "{\n  \"name\": \"program\",\n  \"dependencies\": {\n    \"a\": \"1\"\n  }\n}\n",
		filepath.Join(sdk, "package.json"):     `{"name": "my-pkg-native"}`,
	} {
		if err := os.WriteFile(path, []byte(contents), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	response, err := (&languageHost{}).Link(context.Background(), &pulumirpc.LinkRequest{
		Info: &pulumirpc.ProgramInfo{RootDirectory: program, ProgramDirectory: program, EntryPoint: "."},
		Packages: []*pulumirpc.LinkRequest_LinkDependency{
			{Package: &pulumirpc.PackageDependency{Name: "my-pkg"}, Path: filepath.Join("sdks", "my-pkg")},
		},
	})
	if err != nil {
		t.Fatal(err)
	}

	manifest := hosttest.ReadGenerated(t, program, "package.json")
	if !strings.Contains(manifest, `"a": "1",`) || !strings.Contains(manifest, `"my-pkg-native": "file:sdks/my-pkg"`) {
		t.Errorf("package.json lacks the SDK dependency or lost the others:\n%s", manifest)
	}
	if want := `import * as myPkg from "my-pkg-native";`; !strings.Contains(response.GetImportInstructions(), want) {
		t.Errorf("instructions lack %q:\n%s", want, response.GetImportInstructions())
	}
}
