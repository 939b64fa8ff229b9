package main

import (
	"fmt"
	"strings"
	"time"
)

// serverRSS is one server's peak resident set size.
type serverRSS struct {
	name  string
	bytes int64
}

// report is the outcome of a run.
type report struct {
	cfg     config
	tables  int
	elapsed time.Duration
	total   *tally
	rss     []serverRSS
}

const mib = 1 << 20

// pass reports whether the run kept its bounds: at least one read, no
// errors, every server's peak RSS within the bound.
func (r report) pass() bool {
	if r.total.reads == 0 || r.total.errors > 0 {
		return false
	}
	for _, s := range r.rss {
		if s.bytes > r.cfg.maxRSS*mib {
			return false
		}
	}
	return true
}

func (r report) String() string {
	var b strings.Builder
	t := r.total
	secs := r.elapsed.Seconds()
	fmt.Fprintf(&b, "iceflight load test (%s, %s, %d CPUs)\n", revision(r.cfg.repo), time.Now().UTC().Format("2006-01-02 15:04 UTC"), cpus())
	fmt.Fprintf(&b, "setup:    coordinator + 2 workers on loopback; %d clients × %d stream, %d sample tables, %.1f s\n",
		r.cfg.clients, r.cfg.streams, r.tables, secs)
	fmt.Fprintf(&b, "calls:    %d plan+read (%.0f/s), errors %d; retried after ResourceExhausted: %d plans, %d reads\n",
		t.reads, float64(t.reads)/secs, t.errors, t.rejectedPlans, t.rejectedReads)
	fmt.Fprintf(&b, "rows:     %d (%.0f rows/s)\n", t.rows, float64(t.rows)/secs)
	fmt.Fprintf(&b, "data:     %.1f MB of Arrow buffers (%.1f MB/s)\n", float64(t.bytes)/1e6, float64(t.bytes)/1e6/secs)
	fmt.Fprintf(&b, "plan:     p50 %v  p99 %v\n", ms(percentile(t.plan, 50)), ms(percentile(t.plan, 99)))
	fmt.Fprintf(&b, "read:     p50 %v  p99 %v\n", ms(percentile(t.read, 50)), ms(percentile(t.read, 99)))
	var rss []string
	for _, s := range r.rss {
		rss = append(rss, fmt.Sprintf("%s %.1f MiB", s.name, float64(s.bytes)/mib))
	}
	fmt.Fprintf(&b, "peak RSS: %s (bound %d MiB each)\n", strings.Join(rss, ", "), r.cfg.maxRSS)
	for _, e := range t.firstErrors {
		fmt.Fprintf(&b, "error:    %s\n", e)
	}
	if r.pass() {
		b.WriteString("result:   PASS\n")
	} else {
		b.WriteString("result:   FAIL\n")
	}
	return b.String()
}

// ms rounds a latency for printing.
func ms(d time.Duration) time.Duration {
	if d >= 10*time.Millisecond {
		return d.Round(100 * time.Microsecond)
	}
	return d.Round(10 * time.Microsecond)
}
