package nginx

import (
	"bytes"
	"context"
	"fmt"
	"os"

	"github.com/restyplane/restyplane/api"
)

// adopt takes over pid, the running master of the prefix, as Start's first master. It
// must be an nginx master of this prefix whose admin endpoint answers: anything else is
// refused, since starting a second nginx would fail on the ports and signalling a
// stranger would be worse. Given a conf other than the one in place, it reloads to it;
// if that fails the adopted nginx keeps serving what it ran (the applier brings it to
// the head later) and the failure is logged, not returned, because nginx does run. The
// caller holds op.
func (in *Instance) adopt(ctx context.Context, pid int, conf []byte, certs []api.Certificate, generation string) error {
	if !in.l.ownMaster(pid) {
		return fmt.Errorf("start nginx: pid %d of %s is not an nginx master of prefix %s; stop it", pid, in.l.PidFile(), in.l)
	}
	m := adoptProcess(pid, in.l.stderrLog())
	in.setState(StateStarting)
	st, err := in.waitReady(ctx, m.done, m.exitError)
	if err != nil {
		in.setState(StateStopped)
		return fmt.Errorf("start nginx: adopt the running nginx (pid %d) of prefix %s: %w; stop it", pid, in.l, err)
	}
	in.mu.Lock()
	in.proc, in.gen, in.state = m, st.Generation, StateRunning
	in.mu.Unlock()
	in.opts.Logger.Info("adopted the running nginx", "pid", pid, "generation", st.Generation, "prefix", in.l.String())
	go in.supervise(m)
	if conf == nil {
		return nil
	}
	if cur, _ := os.ReadFile(in.l.conf()); bytes.Equal(cur, conf) && st.Generation == generation {
		return nil
	}
	if err := in.reload(ctx, conf, certs, generation); err != nil {
		in.opts.Logger.Warn("the adopted nginx keeps its conf", "pid", pid, "generation", st.Generation, "err", err)
	}
	return nil
}

// ConfInPlace returns the nginx.conf in place and the generation the running workers
// report, when nginx runs. The applier compares them with the head at its first apply,
// so that an nginx started or adopted with the head's conf is not reloaded for nothing.
// When a reload was cut short (the conf swapped, the workers still on the previous
// generation) the two disagree, and the comparison asks for a reload, which is right.
func (in *Instance) ConfInPlace() (conf []byte, generation string) {
	// No op lock: only the applier reloads, and it asks before its first apply.
	gen := in.Generation()
	if st := in.State(); (st != StateRunning && st != StateAttached) || gen == "" {
		return nil, ""
	}
	conf, err := os.ReadFile(in.l.conf())
	if err != nil {
		return nil, ""
	}
	return conf, gen
}
