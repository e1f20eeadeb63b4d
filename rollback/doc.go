// Package rollback decides, on the control plane, whether a live revision hurts the fleet
// and rolls the history back when it does. It reads the per-backend counters of every
// instance that serves the revision: the agents' reports and the managed instance's own,
// so that one decision is taken from all of them, also when the control plane runs no
// OpenResty of its own. It knows no nginx: counters come in as api values.
package rollback
