// Tests of the code-generation calls through their gRPC contract (the same harness as ../langhost/codegen_test.go): a schema loader served the way the CLI serves
// it (schema.LoaderRegistration on a local port), the host called as the CLI calls it, generated files checked for
// the names and code that show the generator really ran. Under the real CLI: test/e2e/native-sdks.e2e.test.ts.
package main

import (
	"context"
	"errors"
	"net"
	"os"
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

func TestGeneratePackageWritesTheGoSDKAndItsModule(t *testing.T) {
	dir := t.TempDir()
	response, err := (&languageHost{}).GeneratePackage(context.Background(), &pulumirpc.GeneratePackageRequest{
		Directory: dir, Schema: testSchema, LoaderTarget: serveLoader(t),
	})
	if err != nil || len(response.GetDiagnostics()) > 0 {
		t.Fatalf("GeneratePackage: %v, diagnostics %v", err, response.GetDiagnostics())
	}

	if gomod := readGenerated(t, dir, "go.mod"); !strings.Contains(gomod, "module example.com/sdks/go\n") {
		t.Errorf("go.mod is not the parent module of language.go.importBasePath:\n%s", gomod)
	}
	if thing := readGenerated(t, dir, "test/thing.go"); !strings.Contains(thing, "func NewThing(ctx *pulumi.Context") {
		t.Errorf("test/thing.go lacks the resource constructor:\n%s", thing)
	}
}

func TestGenerateProgramWritesGo(t *testing.T) {
	response, err := (&languageHost{}).GenerateProgram(context.Background(), &pulumirpc.GenerateProgramRequest{
		Source: map[string]string{"main.pp": testProgram}, LoaderTarget: serveLoader(t),
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
