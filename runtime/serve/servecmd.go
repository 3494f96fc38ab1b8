package serve

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/worldc/worldc/runtime"
)

// ControlTokenEnv is the environment variable the serve command takes the
// control token from when --control-token is not given (a flag shows in
// the process list; the environment does not).
const ControlTokenEnv = "WORLDC_CONTROL_TOKEN"

// serveConfig is the serve command's flags.
type serveConfig struct {
	addr, controlAddr string
	nemoGymAddr       string
	opts              Options
	grace             time.Duration

	readHeaderTimeout, connIdleTimeout time.Duration
	maxConns                           int
}

// serveFlags parses the serve command's flags; ok is false on bad usage
// (the flag package has said why).
func serveFlags(fs *flag.FlagSet, args []string, stderr io.Writer) (cfg serveConfig, ok bool) {
	fs.StringVar(&cfg.addr, "addr", "127.0.0.1:8080", "address to listen on (the agent plane, and the control plane unless --control-addr is given)")
	fs.StringVar(&cfg.controlAddr, "control-addr", "", "serve the control plane (episodes, grade, state, trajectory) on this address only, apart from the agents' --addr")
	fs.StringVar(&cfg.nemoGymAddr, "nemo-gym-addr", "", "serve NeMo Gym's resources-server endpoints (/seed_session, /<tool>, /verify) at the root of this address")
	token := fs.String("control-token", "", "the control plane needs `Authorization: Bearer TOKEN` (default: $"+ControlTokenEnv+")")
	tokenFile := fs.String("control-token-file", "", "read the control token from this file (its first line)")
	fs.IntVar(&cfg.opts.MaxEpisodes, "max-episodes", DefaultMaxEpisodes, "episodes open at once, at most")
	fs.DurationVar(&cfg.opts.IdleTimeout, "idle-timeout", 30*time.Minute, "close episodes idle this long (0: never)")
	fs.StringVar(&cfg.opts.StateDir, "state-dir", "", "journal episodes and their calls in this directory and rebuild the open ones on start (durable episodes)")
	fs.StringVar(&cfg.opts.Fsync, "fsync", "interval", "the journal's fsync policy: interval (every second), always (before each answer) or none")
	fs.DurationVar(&cfg.readHeaderTimeout, "read-header-timeout", DefaultReadHeaderTimeout, "a request's header must arrive within this (0: no limit)")
	fs.DurationVar(&cfg.opts.ReadBodyTimeout, "read-body-timeout", DefaultReadBodyTimeout, "a request's body must arrive within this, once its handler reads it (0: no limit)")
	fs.DurationVar(&cfg.connIdleTimeout, "conn-idle-timeout", DefaultConnIdleTimeout, "close keep-alive connections idle this long (0: the read-header timeout)")
	fs.DurationVar(&cfg.opts.WSIdleTimeout, "ws-idle-timeout", DefaultWSIdleTimeout, "close WebSockets with no message for this long (0: never)")
	fs.DurationVar(&cfg.opts.WSPing, "ws-ping", DefaultWSPing, "ping WebSockets this often, closing those whose pong does not come back in as long (0: no pings)")
	fs.IntVar(&cfg.maxConns, "max-conns", DefaultMaxConns, "connections open at once per listener; beyond it, 503 (0: no limit)")
	fs.DurationVar(&cfg.grace, "grace", 10*time.Second, "on SIGTERM or SIGINT, wait this long for calls in flight")
	if fs.Parse(args) != nil || fs.NArg() > 0 {
		return cfg, false
	}
	cfg.opts.ControlToken = *token
	if *tokenFile != "" {
		data, err := os.ReadFile(*tokenFile)
		if err != nil {
			fmt.Fprintf(stderr, "--control-token-file: %v\n", err)
			return cfg, false
		}
		cfg.opts.ControlToken, _, _ = strings.Cut(string(data), "\n")
	}
	if cfg.opts.ControlToken == "" {
		cfg.opts.ControlToken = os.Getenv(ControlTokenEnv)
	}
	cfg.opts.ControlToken = strings.TrimSpace(cfg.opts.ControlToken)
	cfg.opts.Logger = slog.New(slog.NewJSONHandler(stderr, nil))
	return cfg, true
}

// serveCmd listens and serves until SIGINT or SIGTERM, then drains the
// calls in flight.
func serveCmd(worlds []runtime.World, cfg serveConfig, stdout io.Writer) error {
	s, err := New(worlds, cfg.opts)
	if err != nil {
		return err
	}
	defer s.Close()
	type listener struct {
		ln   net.Listener
		srv  *http.Server
		what string
	}
	var lns []listener
	defer func() {
		for _, l := range lns {
			l.ln.Close()
		}
	}()
	listen := func(addr string, h http.Handler, what string) error {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return err
		}
		ln = s.LimitListener(ln, cfg.maxConns)
		lns = append(lns, listener{ln, &http.Server{Handler: h, ReadHeaderTimeout: cfg.readHeaderTimeout, IdleTimeout: cfg.connIdleTimeout, ConnState: s.ConnState}, what})
		return nil
	}
	if cfg.controlAddr == "" {
		err = listen(cfg.addr, s.Handler(), "listening on")
	} else {
		err = listen(cfg.addr, s.AgentHandler(), "listening on")
		if err == nil {
			err = listen(cfg.controlAddr, s.ControlHandler(), "control plane on")
		}
	}
	if err == nil && cfg.nemoGymAddr != "" {
		err = listen(cfg.nemoGymAddr, s.NemoGymHandler(), "nemo gym on")
	}
	if err != nil {
		return err
	}
	// The addresses actually bound (":0" picks a port): scripts read them,
	// the agents' first.
	for _, l := range lns {
		fmt.Fprintf(stdout, "%s http://%s\n", l.what, l.ln.Addr())
	}
	switch {
	case cfg.opts.ControlToken == "" && cfg.controlAddr == "":
		s.log.Warn("the control plane is open: anything that reaches " + cfg.addr + " can open, grade and read episodes; give --control-token (or $" + ControlTokenEnv + ") or --control-addr")
	case cfg.opts.ControlToken == "":
		s.log.Warn("the control plane on " + cfg.controlAddr + " has no token: anything that reaches that address can grade")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, len(lns))
	for _, l := range lns {
		go func() { errc <- l.srv.Serve(l.ln) }()
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.log.Info("shutting down", "grace", cfg.grace.String())
	sctx, cancel := context.WithTimeout(context.Background(), cfg.grace)
	defer cancel()
	// MCP streams end, WebSockets close after their answers, connections
	// that end keep their episodes; then the listeners stop and the
	// requests in flight are answered (see shutdown.go).
	s.Drain()
	errs := make(chan error, len(lns))
	for _, l := range lns {
		go func() {
			err := l.srv.Shutdown(sctx)
			if errors.Is(err, context.DeadlineExceeded) {
				// Connections still busy after the grace period are closed.
				s.log.Warn("connections still open after the grace period: closing them", "grace", cfg.grace.String())
				err = l.srv.Close()
			}
			errs <- err
		}()
	}
	go s.EndStreams(sctx)
	for range lns {
		if err := <-errs; err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}
	if err := s.WaitWS(sctx); err != nil {
		s.log.Warn("WebSockets still open after the grace period", "grace", cfg.grace.String())
	}
	s.Close() // the journal's last checkpoint
	fmt.Fprintln(stdout, "stopped")
	return nil
}
