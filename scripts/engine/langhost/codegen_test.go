// Tests of the code-generation calls through their gRPC contract: a schema loader served the way the CLI serves
// it (schema.LoaderRegistration on a local port), the host called as the CLI calls it, generated files checked for
// the names and code that show the generator really ran. Under the real CLI: test/e2e/native-sdks.e2e.test.ts.
package main

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blang/semver"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
)

// A self-contained schema: one resource with one input, so generation never asks the loader for a package.
const testSchema = `{
  "name": "test", "version": "1.2.3",
  "language": {"nodejs": {"packageName": "test-native"}, "go": {"importBasePath": "example.com/sdks/go/test"}},
  "resources": {"test:index:Thing": {
    "inputProperties": {"label": {"type": "string"}}, "requiredInputs": ["label"],
    "properties": {"label": {"type": "string"}}, "required": ["label"]
  }}
}`

// A PCL program with no package references: config in, an output out.
const testProgram = `
config "greeting" "string" {
  default = "hello"
}

output "message" {
  value = "${greeting}, world"
}
`

// noPackages is a schema loader that has no package to give, which is all these tests need.
type noPackages struct{}

var errNoPackages = errors.New("this test's loader has no packages")

func (noPackages) LoadPackage(string, *semver.Version) (*schema.Package, error) {
	return nil, errNoPackages
}
func (noPackages) LoadPackageV2(context.Context, *schema.PackageDescriptor) (*schema.Package, error) {
	return nil, errNoPackages
}

func (noPackages) LoadPackageReference(string, *semver.Version) (schema.PackageReference, error) {
	return nil, errNoPackages
}

func (noPackages) LoadPackageReferenceV2(
	context.Context, *schema.PackageDescriptor,
) (schema.PackageReference, error) {
	return nil, errNoPackages
}

// serveLoader serves a loader on a local port, as the CLI does for the duration of a gen-sdk or import.
func serveLoader(t *testing.T) string {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	server := grpc.NewServer()
	schema.LoaderRegistration(schema.NewLoaderServer(noPackages{}))(server)
	go func() { _ = server.Serve(listener) }()
	t.Cleanup(server.Stop)
	return listener.Addr().String()
}

func readGenerated(t *testing.T, dir, name string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatalf("%s was not generated: %v", name, err)
	}
	return string(raw)
}

func TestGeneratePackageWritesTheTypeScriptSDK(t *testing.T) {
	dir := t.TempDir()
	response, err := (&languageHost{}).GeneratePackage(context.Background(), &pulumirpc.GeneratePackageRequest{
		Directory: dir, Schema: testSchema, LoaderTarget: serveLoader(t),
	})
	if err != nil || len(response.GetDiagnostics()) > 0 {
		t.Fatalf("GeneratePackage: %v, diagnostics %v", err, response.GetDiagnostics())
	}

	if manifest := readGenerated(t, dir, "package.json"); !strings.Contains(manifest, `"name": "test-native"`) {
		t.Errorf("package.json does not name the package from language.nodejs.packageName:\n%s", manifest)
	}
	if thing := readGenerated(t, dir, "thing.ts"); !strings.Contains(thing, "export class Thing extends pulumi.CustomResource") {
		t.Errorf("thing.ts lacks the resource class:\n%s", thing)
	}
}

func TestGeneratePackageReportsSchemaErrorsAsDiagnostics(t *testing.T) {
	response, err := (&languageHost{}).GeneratePackage(context.Background(), &pulumirpc.GeneratePackageRequest{
		Directory: t.TempDir(), Schema: `{"name": "test", "resources": {"not-a-token": {}}}`, LoaderTarget: serveLoader(t),
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
		Source: map[string]string{"main.pp": testProgram}, LoaderTarget: serveLoader(t),
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

	manifest := readGenerated(t, program, "package.json")
	if !strings.Contains(manifest, `"a": "1",`) || !strings.Contains(manifest, `"my-pkg-native": "file:sdks/my-pkg"`) {
		t.Errorf("package.json lacks the SDK dependency or lost the others:\n%s", manifest)
	}
	if want := `import * as myPkg from "my-pkg-native";`; !strings.Contains(response.GetImportInstructions(), want) {
		t.Errorf("instructions lack %q:\n%s", want, response.GetImportInstructions())
	}
}
