// Package hosttest is the harness the hosts' tests share: a schema loader served the way the CLI serves it
// (schema.LoaderRegistration on a local port), a self-contained schema and PCL program, and a reader for the files
// a generator wrote. Under the real CLI, generation is tested by test/e2e/native-sdks.e2e.test.ts.
package hosttest

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/blang/semver"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"google.golang.org/grpc"
)

// Schema is self-contained: one resource with one input, so generation never asks the loader for a package.
const Schema = `{
  "name": "test", "version": "1.2.3",
  "language": {
    "nodejs": {"packageName": "test-native"},
    "go": {"importBasePath": "example.com/sdks/go/test"},
    "python": {"packageName": "test_native"}
  },
  "resources": {"test:index:Thing": {
    "inputProperties": {"label": {"type": "string"}}, "requiredInputs": ["label"],
    "properties": {"label": {"type": "string"}}, "required": ["label"]
  }}
}`

// Program is a PCL program with no package references: config in, an output out.
const Program = `
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

// ServeLoader serves a loader on a local port, as the CLI does for the duration of a gen-sdk or import.
func ServeLoader(t *testing.T) string {
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

// ReadGenerated is the content of dir/name, failing the test if it was not written.
func ReadGenerated(t *testing.T, dir, name string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatalf("%s was not generated: %v", name, err)
	}
	return string(raw)
}
