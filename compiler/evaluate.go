package compiler

// evaluate runs the validators that need the world executed at compile
// time: the seed against the invariants, rubrics before the agent acts, and
// golden solutions.
func (c *checker) evaluate() {
	for _, inv := range c.w.Invariants {
		if len(c.triggerWriters(inv)) == 0 {
			c.errorf("W013", inv.Pos, inv.Pos, "invariant %s can never trigger: no tool creates %s or sets a field its where clause reads", inv.Name, inv.Entity.Name)
		}
	}
}
