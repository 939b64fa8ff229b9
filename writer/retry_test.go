package writer

import (
	"testing"
	"time"
)

func TestRetryPolicyFromProperties(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		props map[string]string
		want  retryPolicy
	}{
		{"Java's defaults", nil, retryPolicy{retries: 4, minWait: 100 * time.Millisecond, maxWait: time.Minute, total: 30 * time.Minute}},
		{"table properties", map[string]string{propRetries: "10", propMinWait: "5", propMaxWait: "50", propTotalTimeout: "1000"},
			retryPolicy{retries: 10, minWait: 5 * time.Millisecond, maxWait: 50 * time.Millisecond, total: time.Second}},
		{"an unparsable value keeps the default", map[string]string{propRetries: "many"},
			retryPolicy{retries: 4, minWait: 100 * time.Millisecond, maxWait: time.Minute, total: 30 * time.Minute}},
	}
	for _, c := range cases {
		if got := retryPolicyOf(c.props); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

// Tasks.runTaskWithRetry: min(min * 2^(attempt-1), max) plus up to 10%.
func TestRetryWaitIsExponentialCappedWithJitter(t *testing.T) {
	t.Parallel()
	p := retryPolicy{minWait: 100 * time.Millisecond, maxWait: time.Second}
	for attempt, base := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 400 * time.Millisecond, 4: 800 * time.Millisecond, 5: time.Second, 9: time.Second} {
		for range 20 {
			if got := p.wait(attempt); got < base || got >= base+base/10 {
				t.Fatalf("attempt %d waits %v, want [%v, %v)", attempt, got, base, base+base/10)
			}
		}
	}
}
