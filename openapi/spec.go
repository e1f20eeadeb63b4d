// Package openapi holds restyplane's API description (Swagger 2.0): swagger.json and
// swagger.yaml, generated from the handlers' annotations by swag (`make openapi`) and
// committed, so that `make openapi-check` sees any drift from the code.
package openapi

import _ "embed"

// JSON is swagger.json, the spec that /swagger/doc.json serves. It is embedded as
// generated: the server needs no part of swag, whose parser (go/types, x/tools and more)
// was a tenth of a cold build.
//
//go:embed swagger.json
var JSON []byte
