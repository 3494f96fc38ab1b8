// Command worldc compiles world specs into typed Go environment packages.
//
// Usage:
//
//	worldc check [--json] PATH...          report diagnostics
//	worldc fmt [-l] [-w] PATH...           format specs canonically
//	worldc gen [-o DIR] [--check] PATH...  check and generate world packages
//	worldc vet [DIR|PATTERN...]            the executability gate on generated packages
//	worldc build [-o DIR] PATH...          check, generate and vet: the main job
//	worldc bundle -o DIR PATH...           a bundle for trainers: server binary, schemas, tasks
//	worldc report [-o FILE] REPORT...      an HTML page of gate reports (report merge: join shards)
//	worldc synth -n N -o DIR               a synthetic corpus of valid worlds
//	worldc author [-o OUT] BRIEFS...       write worlds from briefs with an LLM
//	worldc explain CODE                    document a diagnostic code
//	worldc validators [--json]             list the structural validators
//	worldc grammar                         print the grammar in EBNF
//	worldc version                         worldc, Go and runtime versions
//
// A PATH is a spec file, a directory (every *.world below it) or dir/...;
// "-" reads standard input. Exit status: 0 success, 1 problems found in the
// inputs, 2 bad usage.
//
// An interrupt (SIGINT, Ctrl-C) or SIGTERM stops vet, build and bundle
// cleanly: the go commands they started are stopped with their children,
// the gate's temporary packages removed, no verdict is printed for the
// worlds not judged yet, and worldc prints "worldc: interrupted" and ends
// by the signal, as if it had not caught it (a shell says 130 for SIGINT,
// 143 for SIGTERM). A second signal ends worldc at once. author and
// briefs stop at an interrupt on their own terms; the other commands end
// at the first signal, as any program does.
package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

func main() {
	ctx, release := signalContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(os.Args[1:], newStdio(ctx, release))
	release()
	if sig := interruptedBy(ctx); sig != nil {
		dieBy(sig)
	}
	os.Exit(code)
}

// interrupt is the cause of the cancellation of a command's context: the
// signal worldc received.
type interrupt struct{ sig os.Signal }

func (i interrupt) Error() string { return "interrupted by " + i.sig.String() }

// interruptedBy is the signal that cancelled ctx, or nil.
func interruptedBy(ctx context.Context) os.Signal {
	var i interrupt
	if errors.As(context.Cause(ctx), &i) {
		return i.sig
	}
	return nil
}

// signalContext returns a context that the first of sigs worldc receives
// cancels, with an interrupt as its cause; from then on the signals have
// their default effect again, so that a second Ctrl-C ends worldc at once.
// release gives them their default effect back before any arrived (for
// commands that do not watch the context), and ends the watch; it may be
// called more than once. A signal that worldc was started with ignored (a
// background job of a shell script ignores SIGINT) stays ignored.
//
// This is signal.NotifyContext with stop called on the first signal, but
// for two things: the cause tells the signal (NotifyContext's only says
// it in words), and release does not cancel the context (stop does).
func signalContext(parent context.Context, sigs ...os.Signal) (ctx context.Context, release func()) {
	var watched []os.Signal
	for _, s := range sigs {
		if !signal.Ignored(s) {
			watched = append(watched, s)
		}
	}
	if len(watched) == 0 {
		return parent, func() {}
	}
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	released := make(chan struct{})
	var once sync.Once
	release = func() {
		once.Do(func() {
			signal.Stop(ch)
			close(released)
		})
	}
	signal.Notify(ch, watched...)
	go func() {
		select {
		case s := <-ch:
			release()
			cancel(interrupt{s})
		case <-released:
		}
	}()
	return ctx, release
}

// dieBy ends worldc by sig, which it caught and has acted on: the parent
// sees a process killed by the signal, as it would had worldc not caught
// it (a shell's $? is 128+n, and a shell script's loop stops at a Ctrl-C
// rather than going on to its next command). Where a process cannot
// signal itself, dieBy returns, and main exits with 128+n instead.
func dieBy(sig os.Signal) {
	signal.Reset(sig)
	p, err := os.FindProcess(os.Getpid())
	if err != nil || p.Signal(sig) != nil {
		return
	}
	// The signal is delivered to this thread or another before Signal
	// returns, or just after; the runtime then ends the process by it.
	time.Sleep(time.Second)
}
