// Pulumi resources and data sources for the Platform Management API v2beta1, served by the provider plugin pulumi-resource-platform.
package platform
