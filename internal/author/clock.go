package author

import (
	"context"
	"time"
)

// Clock is the time a Client waits on: the timeout of each HTTP attempt,
// the backoff between retries, the rate limiter, and the latency it
// reports. The system clock is the default; tests give the client a clock
// of their own, so that no test waits on real time and none depends on the
// machine's speed.
type Clock interface {
	Now() time.Time
	// Sleep waits d, or until ctx is done (then it returns ctx's error).
	Sleep(ctx context.Context, d time.Duration) error
	// AfterFunc calls f in its own goroutine once d has passed; stop
	// prevents that if it has not happened yet, and reports whether it
	// did.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// systemClock is the Clock of the time package.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (systemClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}
