module ${PROJECT}

go 1.25

require (
	github.com/pulumi-platform/native-sdks/go v0.2.0
	github.com/pulumi/pulumi/sdk/v3 v3.248.0
)
