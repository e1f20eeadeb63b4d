package api

// Status is what restyplane knows about an OpenResty instance and how far it is behind the
// history: the answer to GET /api/v1/status.
type Status struct {
	Instance string `json:"instance" example:"default"`
	// State is the OpenResty process state: running, starting, restarting, stopped,
	// attached, or off when restyplane runs without OpenResty.
	State   string `json:"state" example:"running"`
	Head    int64  `json:"head"`
	Applied int64  `json:"applied"`
	InSync  bool   `json:"inSync"`
	// LastGood is the newest revision that applied and stayed healthy through its watch.
	LastGood int64 `json:"lastGood"`
	// Watching is the revision under health watch after its apply, 0 when none.
	Watching int64 `json:"watching,omitempty"`
	// Rejected is the head revision nginx refused, while it is still the head.
	Rejected  int64        `json:"rejected,omitempty"`
	LastApply *ApplyRecord `json:"lastApply,omitempty"`
	// Fleet counts every known instance, this one and the agents', and those at the head.
	Fleet *Fleet `json:"fleet,omitempty"`
}
