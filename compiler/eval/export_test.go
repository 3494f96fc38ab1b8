package eval

import "github.com/worldc/worldc/compiler/ir"

// Flat is a copy of s whose tables are all full, each with its own rows
// and index, sharing nothing with s: what the copy-on-write tables of s
// must agree with.
func Flat(s *State) *State {
	c := s.Clone()
	for _, t := range s.tables {
		c.own(t.ent).mineAll()
	}
	return c
}

// Memoized is the number of rows whose outcome of inv a memo serving s
// holds (see invMemo): 0 when no memo serves s.
func Memoized(s *State, inv *ir.Invariant) int {
	t := s.table(inv.Entity)
	base := t.pristineBase()
	if t.base != nil {
		base = t.base
	}
	if base == nil {
		return 0
	}
	base.mu.Lock()
	defer base.mu.Unlock()
	m := base.memo(s, inv)
	if m == nil {
		return 0
	}
	n := 0
	for _, r := range m.res {
		if r.known {
			n++
		}
	}
	return n
}
