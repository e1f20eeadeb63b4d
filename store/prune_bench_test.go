package store

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/internal/benchmd"
)

// The size of the prune benchmark: the numbers its report's goals are stated for.
const (
	pruneBackends = 500
	pruneRevs     = 101000 // 100,000 to prune and the 1,000 the policy keeps
	pruneKeep     = 1000
	pruneRollback = 997 // every this many revisions is a rollback row pointing at a stored body
)

// BenchmarkPrune measures one prune of 100,000 revisions on a real SQLite file: 101,000
// single-backend revisions over 500 backends (every 997th a rollback row that points at a
// stored body), one audit event per revision and one apply record per ten, then a policy
// that keeps 1,000. The history is seeded with plain INSERTs, as the write path would store
// it, so that the benchmark measures the prune, not a hundred thousand writes.
//
// Run it with `make bench`, which sets RESTYPLANE_BENCH_OUT so that the results are written
// into BENCHMARKS.md. One iteration is the whole scenario; use -benchtime 1x.
func BenchmarkPrune(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		path := b.TempDir() + "/prune.db"
		seedPruneHistory(b, path)
		ctx := context.Background()
		s, err := Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		head := s.Head()
		sizeBefore := fileSize(b, s)
		if _, err := s.SetRetention(ctx, meta("bench"), api.Retention{KeepRevisions: pruneKeep}); err != nil {
			b.Fatal(err)
		}
		load := loadAverage()
		// A writer edits one backend throughout the prune (bounded in count): the longest
		// any of its writes took is how long the prune blocks writers.
		stop, waited := make(chan struct{}), make(chan time.Duration, 1)
		go func() {
			var worst time.Duration
			for n := 0; n < 100000; n++ {
				select {
				case <-stop:
					waited <- worst
					return
				default:
				}
				t0 := time.Now()
				if _, err := s.Write(ctx, meta("edit"), []api.Mutation{{Kind: api.KindBackend,
					Backend: backend("backend-000", 20000+n%10000)}}); err != nil {
					b.Error(err)
				}
				worst = max(worst, time.Since(t0))
			}
			<-stop
			waited <- worst
		}()
		b.StartTimer()
		start := time.Now()
		res, err := s.Prune(ctx, meta("bench"), time.Now())
		took := time.Since(start)
		b.StopTimer()
		close(stop)
		worstWrite := <-waited
		if err != nil {
			b.Fatal(err)
		}
		head = s.Head()
		if res.Revisions != pruneRevs-pruneKeep || res.Floor != pruneRevs-pruneKeep+1 {
			b.Fatalf("prune = %+v, want %d revisions", res, pruneRevs-pruneKeep)
		}
		sizeAfter := fileSize(b, s)
		s.Close()
		if s, err = Open(ctx, path); err != nil {
			b.Fatal(err)
		}
		if !reflect.DeepEqual(s.Head(), head) {
			b.Fatal("the head changed with the prune")
		}
		s.Close()
		b.ReportMetric(took.Seconds(), "prune-s")
		b.ReportMetric(float64(res.ObjectRows), "object-rows")
		b.ReportMetric(worstWrite.Seconds()*1000, "worst-write-ms")
		if out := os.Getenv("RESTYPLANE_BENCH_OUT"); out != "" {
			if err := benchmd.WriteSection(out, "prune", pruneMarkdown(res, took, worstWrite, sizeBefore, sizeAfter, load)); err != nil {
				b.Fatalf("write %s: %v", out, err)
			}
		}
	}
}

// seedPruneHistory writes the benchmark's history straight into a fresh database.
func seedPruneHistory(b *testing.B, path string) {
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	tx := s.db.MustBeginTx(ctx, nil)
	base := time.Now().Add(-90 * 24 * time.Hour).UnixNano()
	for rev := int64(1); rev <= pruneRevs; rev++ {
		i := int(rev % pruneBackends)
		at := base + rev*int64(time.Millisecond)
		op, rollbackOf, bodyOf := api.OpUpdate, any(nil), any(nil)
		var body []byte
		switch {
		case rev <= pruneBackends:
			op = api.OpCreate
			fallthrough
		case rev%pruneRollback != 0:
			be := backend(fmt.Sprintf("backend-%03d", i), 8000+int(rev%1000), 9000, 9001, 9002)
			body, _, _ = encode(api.Mutation{Kind: api.KindBackend, Backend: be})
		default: // a rollback restoring the body this backend had pruneBackends revisions ago
			rollbackOf, bodyOf = rev-pruneBackends, rev-pruneBackends
		}
		tx.MustExecContext(ctx, `INSERT INTO revisions (id, parent, created_at, actor, source, message, rollback_of, change_count)
			VALUES (?, ?, ?, 'bench', 'api', 'edit', ?, 1)`, rev, rev-1, at, rollbackOf)
		tx.MustExecContext(ctx, `INSERT INTO object_versions (kind, name, revision, op, body, body_of) VALUES ('backend', ?, ?, ?, ?, ?)`,
			fmt.Sprintf("backend-%03d", i), rev, op, body, bodyOf)
		tx.MustExecContext(ctx, `INSERT INTO audit_events (created_at, actor, action, target, revision, outcome)
			VALUES (?, 'bench', 'write', 'backend', ?, 'success')`, at, rev)
		if rev%10 == 0 {
			tx.MustExecContext(ctx, `INSERT INTO applies (revision, instance, mode, started_at, duration_ms, outcome)
				VALUES (?, 'default', 'dynamic', ?, 1, 'success')`, rev, at)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

// fileSize is the database's size once the WAL is folded in, and the part of it in use.
func fileSize(b *testing.B, s *Store) [2]int64 {
	ctx := context.Background()
	if err := s.Checkpoint(ctx); err != nil {
		b.Fatal(err)
	}
	size, err := s.SizeBytes(ctx)
	if err != nil {
		b.Fatal(err)
	}
	var free, page int64
	s.db.Get(&free, `PRAGMA freelist_count`)
	s.db.Get(&page, `PRAGMA page_size`)
	return [2]int64{size, size - free*page}
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

func pruneMarkdown(res api.PruneResult, took, worstWrite time.Duration, before, after [2]int64, load string) string {
	var w strings.Builder
	fmt.Fprintf(&w, "## Pruning the history (issue 12)\n\n")
	fmt.Fprintf(&w, "Command: `make bench` (runs `go test ./store -run '^$' -bench '^BenchmarkPrune$' -benchtime 1x`)  \n")
	fmt.Fprintf(&w, "Machine: %s/%s, %d CPUs  \nLoad average when it started (other work on the machine skews the figures): %s  \nDate: %s\n\n",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), load, time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&w, "Scenario: a real SQLite file (WAL) holding %d revisions, each changing one of %d backends (every %dth a rollback row pointing at a stored body), one audit event per revision and one apply record per ten; a policy keeping %d revisions; one `Prune`, which runs in transactions of at most %d revisions, each under the writer lock (writers wait for one batch, not the whole prune).\n\n",
		pruneRevs, pruneBackends, pruneRollback, pruneKeep, pruneBatch)
	fmt.Fprintf(&w, "| measure | result |\n|---|---|\n")
	fmt.Fprintf(&w, "| time to prune %d revisions (all batches) | %.2f s |\n", res.Revisions, took.Seconds())
	fmt.Fprintf(&w, "| longest single-backend write during the prune (a writer runs throughout) | %.0f ms |\n", worstWrite.Seconds()*1000)
	fmt.Fprintf(&w, "| rows deleted | %d revisions, %d object versions, %d apply records, %d audit events |\n",
		res.RevisionRows, res.ObjectRows, res.Applies, res.AuditEvents)
	fmt.Fprintf(&w, "| revisions kept below the floor (their rows hold kept state or bodies) | %d |\n", res.Revisions-res.RevisionRows)
	fmt.Fprintf(&w, "| database file before / after | %.1f MB / %.1f MB (SQLite reuses freed pages; no VACUUM) |\n",
		mb(before[0]), mb(after[0]))
	fmt.Fprintf(&w, "| pages in use before / after | %.1f MB / %.1f MB |\n\n", mb(before[1]), mb(after[1]))
	return w.String()
}

func mb(n int64) float64 { return float64(n) / (1 << 20) }
