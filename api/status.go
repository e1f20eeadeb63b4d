package api

// OpenResty instance states, as the applier reports them.
const (
	InstanceRunning  = "running"
	InstanceStarting = "starting"
	InstanceStopped  = "stopped"
	InstanceOff      = "off"
	InstanceAttached = "attached"
)

// InstanceStatus is what the applier knows about the OpenResty instance it drives.
type InstanceStatus struct {
	Name  string `json:"name,omitempty" example:"default"`
	State string `json:"state" enums:"running,starting,stopped,off,attached" example:"running"`
	PID   int    `json:"pid,omitempty" example:"4242"`
	// Applied is the revision the instance serves (0: none yet).
	Applied int64 `json:"applied" example:"41"`
	// Message explains a stopped or failing instance.
	Message string `json:"message,omitempty"`
}

// Status answers "is what runs what I asked for": the head of the history, the revision
// the instance serves, and the last apply attempt.
type Status struct {
	Head      int64          `json:"head" example:"42"`
	Applied   int64          `json:"applied" example:"41"`
	InSync    bool           `json:"inSync"`
	LastApply *ApplyRecord   `json:"lastApply,omitempty"`
	Instance  InstanceStatus `json:"instance"`
}
