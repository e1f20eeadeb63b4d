package bench

import (
	"fmt"
	"strings"
	"testing"
)

// The dynamic-change scale benchmark compares a small config with a large one.
const (
	scaleSmall   = 10
	scaleLarge   = 5000
	scaleChanges = 200
)

// BenchmarkDynamicScale measures what one dynamic change costs with 5,000 backends loaded
// against 10: the applier's own apply time and the propagation from the API write to the
// first proxied response from the new endpoint. The goal is within 2× (medians).
func BenchmarkDynamicScale(b *testing.B) {
	for i := 0; i < b.N; i++ {
		load := loadAverage()
		var res [2]propagationResult
		var loaded [2]string
		for k, n := range []int{scaleSmall, scaleLarge} {
			in := start(b)
			s := newDynamicSetup(in, n-1)
			s.run(propagationWarmup)
			res[k] = s.run(scaleChanges)
			loaded[k] = fmtDur(s.loaded)
			in.Stop() // one instance at a time: the two must not share the cores
		}
		applyRatio := ms(res[1].apply.p50) / ms(res[0].apply.p50)
		propRatio := ms(res[1].total.p50) / ms(res[0].total.p50)
		b.ReportMetric(applyRatio, "apply-ratio")
		b.ReportMetric(propRatio, "propagation-ratio")

		var w strings.Builder
		w.WriteString(header("Applier: one dynamic change with 5,000 backends against 10 (issue 3)", "BenchmarkDynamicScale", load))
		fmt.Fprintf(&w, "Scenario: two runs of the real `restyplane serve` with its managed nginx, one after the other: one loads %d backends, the other %d "+
			"(one `PUT /api/v1/config`; live after %s and %s, the first apply pushing them all). In both, one server routes to backend `b-0000`, "+
			"which %d `PUT /api/v1/backends/b-0000/endpoints` (after %d warm-up changes) move between two upstreams that answer with their name; "+
			"the other backends have two endpoints each on addresses nothing routes to. Propagation is timed as in the propagation benchmark.\n\n",
			scaleSmall, scaleLarge, loaded[0], loaded[1], scaleChanges, propagationWarmup)
		fmt.Fprintf(&w, "| measure (median) | %d backends | %d backends | ratio | goal | |\n|---|---|---|---|---|---|\n", scaleSmall, scaleLarge)
		fmt.Fprintf(&w, "| dynamic apply (`durationMs` of the apply records) | %s | %s | %.2f× | ≤ 2× | %s |\n",
			fmtDur(res[0].apply.p50), fmtDur(res[1].apply.p50), applyRatio, verdict(applyRatio <= 2))
		fmt.Fprintf(&w, "| propagation, write to first response from the new endpoint | %s | %s | %.2f× | ≤ 2× | %s |\n\n",
			fmtDur(res[0].total.p50), fmtDur(res[1].total.p50), propRatio, verdict(propRatio <= 2))
		w.WriteString(spreadHeader)
		for k, n := range []int{scaleSmall, scaleLarge} {
			fmt.Fprintf(&w, "| %d backends: dynamic apply | %s |\n", n, res[k].apply.row())
			fmt.Fprintf(&w, "| %d backends: propagation | %s |\n", n, res[k].total.row())
			fmt.Fprintf(&w, "| %d backends: the API write alone | %s |\n", n, res[k].write.row())
		}
		report(b, "applier-scale", w.String())
	}
}
