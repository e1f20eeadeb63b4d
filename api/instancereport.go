package api

import "time"

// InstanceReport is one agent's report as the control plane stores it: whose, what, and
// when it arrived. Reports that arrive together are stored together (one transaction).
type InstanceReport struct {
	Name   string
	Report *Report
	Seen   time.Time
}
