package reconciler

import (
	"encoding/json"
	"fmt"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// httpRouteSchema is the name of HTTPRoute's schema in the API server's OpenAPI v3
// document of gateway.networking.k8s.io/v1.
const httpRouteSchema = "io.k8s.networking.gateway.v1.HTTPRoute"

// openAPISchema is the part of an OpenAPI v3 schema that a field's path walks.
type openAPISchema struct {
	Properties map[string]*openAPISchema `json:"properties"`
	Items      *openAPISchema            `json:"items"`
}

// retrySchema is what the cluster's HTTPRoute CRD says of rules[].retry: whether it keeps
// it, and the server-relative URL of the OpenAPI v3 document of
// gateway.networking.k8s.io/v1 that said so ("" where the group version is not served).
// That URL carries a hash of the document, which changes with the group's CRDs.
type retrySchema struct {
	served bool
	doc    string
}

// readRetrySchema reports whether the cluster's HTTPRoute keeps rules[].retry: only
// Gateway API's experimental channel has it, and an API server whose CRD lacks it drops
// it from every route as unknown. The CRD's schema says so in the OpenAPI document that
// every client may read, so no more RBAC is needed than for discovery. When the
// document is still the one known was read from, it returns known without reading it.
func readRetrySchema(client *clients, known retrySchema) (retrySchema, error) {
	paths, err := client.gateway.Discovery().OpenAPIV3().Paths()
	if err != nil {
		return known, fmt.Errorf("openapi v3 paths: %w", err)
	}
	gv, ok := paths["apis/"+gatewayv1.GroupVersion.String()]
	if !ok {
		return retrySchema{}, nil
	}
	s := retrySchema{doc: gv.ServerRelativeURL()}
	if s.doc == known.doc {
		return known, nil
	}
	doc, err := gv.Schema("application/json")
	if err != nil {
		return known, fmt.Errorf("openapi v3 of %s: %w", gatewayv1.GroupVersion, err)
	}
	if s.served, err = schemaHas(doc, httpRouteSchema, "spec", "rules", "[]", "retry"); err != nil {
		return known, err
	}
	return s, nil
}

// schemaHas reports whether the schema name of an OpenAPI v3 document has the field at
// path, where "[]" steps into an array's items.
func schemaHas(doc []byte, name string, path ...string) (bool, error) {
	var d struct {
		Components struct {
			Schemas map[string]*openAPISchema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return false, fmt.Errorf("decode openapi v3: %w", err)
	}
	s := d.Components.Schemas[name]
	for _, p := range path {
		if s == nil {
			return false, nil
		}
		if p == "[]" {
			s = s.Items
		} else {
			s = s.Properties[p]
		}
	}
	return s != nil, nil
}
