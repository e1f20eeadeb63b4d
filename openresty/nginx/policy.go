package nginx

import (
	"context"
	"net/http"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/render"
)

// PushPolicies stores location policies stamped with version and deletes the deleted
// ones; with replace it deletes every policy not in the push.
func (c *AdminClient) PushPolicies(ctx context.Context, version int64, policies []render.LocationPolicy, deleted []string, replace bool) ([]api.SkippedObject, error) {
	body := struct {
		Version  int64                   `json:"version"`
		Policies []render.LocationPolicy `json:"policies,omitempty"`
		Deleted  []string                `json:"deleted,omitempty"`
		Replace  bool                    `json:"replace,omitempty"`
	}{version, policies, deleted, replace}
	var ans pushAnswer
	if err := c.do(ctx, http.MethodPost, "/policies", body, &ans); err != nil {
		return nil, err
	}
	return ans.objects(api.KindServer), nil
}

// Policies lists the names of the policies the instance holds.
func (c *AdminClient) Policies(ctx context.Context) ([]string, error) {
	var out []string
	err := c.do(ctx, http.MethodGet, "/policies", nil, &out)
	return out, err
}
