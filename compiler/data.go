package compiler

import (
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/dsl"
)

// load reads the records of a `load` line from its data file.
func (c *checker) load(l *dsl.Load, idx *recordIndex) []*ir.Record {
	c.errorf("W004", l.Pos, l.EndPos, "load is not supported yet")
	return nil
}
