package gen

import (
	"fmt"
	"runtime/debug"

	"github.com/worldc/worldc/compiler/ir"
)

// unexpected is what the generator panics with on IR it does not expect: an
// expression, statement, operator, function, tool kind or constant it has
// no code for. The checker produces only IR the generator handles, so this
// is a bug of worldc, never of the spec; Generate recovers the panic and
// returns it as an error naming the world and the spec position.
type unexpected struct {
	pos ir.Pos // zero when the construct has no position of its own
	msg string
}

// unexpectedAt is an unexpected for a construct at pos, to panic with:
// panic(unexpectedAt(x.Pos, "unknown operator %s", x.Op)).
func unexpectedAt(pos ir.Pos, format string, args ...any) *unexpected {
	return &unexpected{pos: pos, msg: fmt.Sprintf(format, args...)}
}

// recovered turns a panic of Generate on w into its error: at the position
// of the construct an unexpected names, or else at the world's header. Any
// other panic (a failure the generator did not foresee) keeps its stack,
// which says where it happened.
func recovered(w *ir.World, r any) error {
	pos, msg := w.Pos, fmt.Sprint(r)
	if u, ok := r.(*unexpected); ok {
		if u.pos.Line > 0 {
			pos = u.pos
		}
		return fmt.Errorf("gen: world %s: %s: unexpected IR: %s (a bug of worldc, not of the spec)", w.Name, pos, u.msg)
	}
	return fmt.Errorf("gen: world %s: %s: generating the package panicked (a bug of worldc, not of the spec): %s\n%s", w.Name, pos, msg, debug.Stack())
}
