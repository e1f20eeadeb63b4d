// Package server is restyplane's HTTP side: the REST API under /api/v1, bearer-token
// authentication with roles, request metrics, /metrics, /healthz and /readyz, the swagger UI
// at /swagger/ and the web UI at /.
//
// Handlers return errors and one place, writeError, turns them into a status and a JSON
// body, so that every error a client sees has the same shape:
//
//	{"error": {"code": "invalid", "message": "...", "field": "endpoints[0].port"}}
//
// The general API information below is read by swag (make openapi) into openapi/.
//
//	@title						restyplane API
//	@version					1
//	@description				restyplane is a control plane for OpenResty. Every write becomes an immutable revision with who, when and why; any revision can be inspected, diffed and rolled back.
//	@description				Send a token as "Authorization: Bearer <token>". Roles: viewer reads, editor writes configuration and rolls back, admin also manages tokens and settings.
//	@description				Writes take a reason from a "message" field, a "message" query parameter or an X-Change-Reason header, accept ?dryRun=true, and honour If-Match with the ETag of what they change.
//	@license.name				Apache-2.0
//	@BasePath					/
//	@securityDefinitions.apikey	BearerAuth
//	@in							header
//	@name						Authorization
//	@description				"Bearer " followed by a restyplane token.
package server
