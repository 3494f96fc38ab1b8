package eval

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
