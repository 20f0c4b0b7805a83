package analyze

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loopgate/loopgate/ingest"
)

// processCPU is the CPU time (user + system) the process has used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPrepareRunCorpus is BenchmarkPrepareRun over the sessions of a
// corpus on disk: Prepare and one Run per session under the loopgate
// preset, as replay does after reading. Set LOOPGATE_BENCH_DIR to the
// corpus (it is skipped otherwise); the first LOOPGATE_BENCH_MB megabytes
// of its files, in name order (default 64), are read into memory first.
// Besides ns/op it reports the process's CPU time per call (cpu-ns/call),
// garbage collection included, which varies less than the time on a
// machine other work shares: compare two builds of the benchmark in
// alternating runs on that figure.
func BenchmarkPrepareRunCorpus(b *testing.B) {
	dir := os.Getenv("LOOPGATE_BENCH_DIR")
	if dir == "" {
		b.Skip("LOOPGATE_BENCH_DIR is not set")
	}
	limit := int64(64)
	if s := os.Getenv("LOOPGATE_BENCH_MB"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			b.Fatalf("LOOPGATE_BENCH_MB: %v", err)
		}
		limit = n
	}
	limit <<= 20
	var files []string
	var total int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") {
			return nil // the generator's manifest
		}
		files = append(files, path)
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	sort.Strings(files)
	var sessions []*ingest.Session
	calls := 0
	for _, f := range files {
		if total >= limit {
			break
		}
		st, err := os.Stat(f)
		if err != nil {
			b.Fatal(err)
		}
		total += st.Size()
		ingest.ReadFile(f, ingest.Options{}, &ingest.Sink{
			OnSession: func(s *ingest.Session) {
				sessions = append(sessions, s)
				for _, t := range s.Turns {
					for _, r := range t.Requests {
						calls += len(r.Calls)
					}
				}
			},
			OnProblem: func(Problem) {},
		})
	}
	if calls == 0 {
		b.Fatalf("no calls in %s", dir)
	}
	r := benchPreset(b, "loopgate")
	counter := benchCounter(b, "o200k_base")
	b.SetBytes(total)
	b.ReportAllocs()
	cpu := processCPU()
	for b.Loop() {
		tc := NewTokenCache(counter)
		for _, s := range sessions {
			Run(Prepare(s), r, tc)
		}
	}
	cpu = processCPU() - cpu
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(calls), "cpu-ns/call")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(calls), "ns/call")
}
