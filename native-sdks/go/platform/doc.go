// Pulumi resources and data sources for the Platform Management API v2beta1 (dynamic providers).
package platform
