package ir

import "sort"

// A PosMap says where the Go code of a generated world package comes from
// in its spec. The generator makes it as it emits the package
// (gen.GeneratePackage): it records the spec element behind each top-level
// declaration it writes, and behind some smaller pieces, then finds their
// lines in the formatted files, so the map is exact, not inferred from Go
// names. The gate reads it to place a failure of the package in the spec
// (internal/gate.NewLocator).
//
// It is declared here, beside Pos, because both sides need it: the gate
// reads it without importing the generator, and the map holds only spec
// positions and text, not the IR it was made from.
type PosMap struct {
	// World is the world's own declaration, and what code common to the
	// world comes from (the registry, the state's plumbing, the seed
	// loader, the conformance tests). A Go position that no range holds
	// belongs there too.
	World Origin
	// Files holds the ranges of each generated Go file, keyed by file
	// name ("tools.go"). Every top-level declaration, doc comment included,
	// is in a range; consecutive declarations from one origin share a
	// range. Some declarations also have smaller ranges inside them: the
	// statements of a custom tool's body that come from one of its spec
	// statements, a tool's entry in the registry, a task's entry in the
	// task table, the checks of one entity or field in State.Validate.
	// Ranges are sorted by first line, an enclosing range before the ones
	// inside it; pieces side by side may share a line (`}, {`), which is
	// the later one's. The imports, and the lines between declarations of
	// different origins, are in no range.
	Files map[string][]Range
	// Names are the spec elements the package's generated checks name in
	// their failure messages (`task "t"`, `step 2`, `tool "x"`,
	// `invariant "i"`), with where they are.
	Names map[Named]Origin
}

// Origin is a spec element that generated code comes from: its position
// and what it is, as the gate prints it after the position ("tool
// set_tier", "field Customer.tier", "tool set_tier, require", "task
// pay_it, assertion 2", "task pay_it, solution step 1", "world shop
// (generated code common to the world)").
type Origin struct {
	Pos  Pos
	What string
}

// A Range is lines First through Last (1-based, inclusive) of a generated
// Go file, and the spec element they come from.
type Range struct {
	First, Last int
	Origin      Origin
}

// Named is a spec element as failure messages name it: a task, a step of
// a task's golden solution (Step counts from 1; 0 for the task itself), a
// tool or an invariant.
type Named struct {
	Kind string // "task", "tool" or "invariant"
	Name string
	Step int
}

// At returns the origin of line of the generated Go file named file: that
// of the innermost range holding the line. ok is false when no range
// holds it (a line between declarations, a file the map does not have).
func (m *PosMap) At(file string, line int) (o Origin, ok bool) {
	if m == nil {
		return Origin{}, false
	}
	rs := m.Files[file]
	// The ranges starting at or before line; the last of them that holds
	// it is the innermost (ranges nest, an enclosing one first).
	n := sort.Search(len(rs), func(i int) bool { return rs[i].First > line })
	for i := n - 1; i >= 0; i-- {
		if rs[i].Last >= line {
			return rs[i].Origin, true
		}
	}
	return Origin{}, false
}
