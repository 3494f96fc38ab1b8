package serve

import (
	"fmt"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/worldc/worldc/runtime"
)

// metrics are the server's Prometheus metrics, in a set of its own (no
// global registry).
type serverMetrics struct {
	set                              *metrics.Set
	opened, closed, reaped, capacity *metrics.Counter
	unauthorized                     *metrics.Counter
	recovered, replayFailed          *metrics.Counter
	connRejected                     *metrics.Counter
	mcpFast                          *metrics.Counter
	latency                          *metrics.PrometheusHistogram
}

func newMetrics(s *Server) *serverMetrics {
	set := metrics.NewSet()
	m := &serverMetrics{
		set:      set,
		opened:   set.NewCounter("worldc_episodes_opened_total"),
		closed:   set.NewCounter("worldc_episodes_closed_total"),
		reaped:   set.NewCounter("worldc_episodes_reaped_total"),
		capacity: set.NewCounter("worldc_capacity_refusals_total"),
		// Control-plane requests refused for want of the token.
		unauthorized: set.NewCounter("worldc_unauthorized_total"),
		// Episodes rebuilt from the journal at start, and dropped there.
		recovered:    set.NewCounter("worldc_episodes_recovered_total"),
		replayFailed: set.NewCounter("worldc_journal_replay_failures_total"),
		// Connections refused beyond --max-conns.
		connRejected: set.NewCounter("worldc_connections_rejected_total"),
		// MCP tools/call answered by the fast path (mcpfast.go).
		mcpFast: set.NewCounter("worldc_mcp_fast_calls_total"),
		latency: set.NewPrometheusHistogram("worldc_call_duration_seconds"),
	}
	set.NewGauge("worldc_episodes_open", func() float64 { return float64(s.openCount()) })
	return m
}

// observe counts one tool call by outcome and records its latency.
func (m *serverMetrics) observe(obs runtime.Observation, d time.Duration) {
	code := "ok"
	if !obs.OK && obs.Error != nil {
		code = obs.Error.Code
	}
	m.set.GetOrCreateCounter(fmt.Sprintf(`worldc_calls_total{code=%q}`, code)).Inc()
	m.latency.Update(d.Seconds())
}

// apiErrors is the counter of API errors with a code.
func (m *serverMetrics) apiErrors(code string) *metrics.Counter {
	return m.set.GetOrCreateCounter(fmt.Sprintf(`worldc_api_errors_total{code=%q}`, code))
}

// timeouts is the counter of a kind of timeout: body, ws_idle, ws_ping.
func (m *serverMetrics) timeouts(kind string) *metrics.Counter {
	return m.set.GetOrCreateCounter(fmt.Sprintf(`worldc_timeouts_total{kind=%q}`, kind))
}
