package tasks

import "github.com/worldc/worldc/compiler/ir"

// seedRecord is a record a task adds to the world's seed.
type seedRecord struct {
	e      *ir.Entity
	handle string
	rec    map[string]any
}
