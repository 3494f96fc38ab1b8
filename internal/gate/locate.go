package gate

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/worldc/worldc/compiler/ir"
)

// A Locator maps a failure of a world package to the spec position of the
// declaration it comes from: by its position in a generated Go file
// ("file.go:12:3", relative to VetOptions.Dir or absolute), or else by what
// its message names (the conformance checks say `task "t"`, `step 2`,
// `tool "x"` or `tool x:`), or, when neither tells, the world's own
// declaration: every failure of a world package gets a spec position.
type Locator func(goPos, message string) string

// NewLocator returns the Locator of the world package generated into dir
// whose position map is pm (gen.GeneratePackage makes both). A Go position
// in one of the package's files is placed by the map: the spec element
// the innermost declaration or piece of one around its line comes from (a
// tool, a statement of its body, a field, an invariant, a task's
// assertion...). A failure that no such element places, a position in
// code common to the world or in no file of dir (go test reports the
// failures of the conformance checks at world_test.go), is placed by what
// its message names, among the tasks, solution steps, tools and
// invariants the map lists; failing that, at the world.
func NewLocator(pm *ir.PosMap, dir string) Locator {
	if pm == nil {
		return func(string, string) string { return "" }
	}
	dir = absDir(dir)
	return func(goPos, message string) string {
		if o, ok := byGoPos(pm, dir, goPos); ok && o != pm.World && o.Pos.Line > 0 {
			return at(o)
		}
		if o, ok := byMessage(pm, message); ok && o.Pos.Line > 0 {
			return at(o)
		}
		return at(pm.World)
	}
}

// at formats a spec position and what is there; "" without a position.
func at(o ir.Origin) string {
	if o.Pos.Line <= 0 {
		return ""
	}
	return fmt.Sprintf("%s:%d:%d, %s", o.Pos.Filename, o.Pos.Line, o.Pos.Column, o.What)
}

// byGoPos looks a Go position up in the map, if it is in a file of the
// package in dir.
func byGoPos(pm *ir.PosMap, dir, goPos string) (ir.Origin, bool) {
	file, line, _, ok := splitPosCol(goPos)
	if !ok || absDir(filepath.Dir(file)) != dir {
		return ir.Origin{}, false
	}
	return pm.At(filepath.Base(file), line)
}

// absDir is dir made absolute and clean ("" when it cannot be).
func absDir(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	return abs
}

var (
	taskRE      = regexp.MustCompile(`task "([^"]+)"`)
	stepRE      = regexp.MustCompile(`: step (\d+)`)
	toolRE      = regexp.MustCompile(`tool "([^"]+)"|\btool ([A-Za-z_][A-Za-z0-9_]*):`)
	invariantRE = regexp.MustCompile(`invariant "?([A-Za-z_][A-Za-z0-9_]*)"?`)
)

// byMessage places a failure by what its message names, as the runtime's
// conformance checks write it: a task's solution step, a task, a tool or
// an invariant of the map, most precise first.
func byMessage(pm *ir.PosMap, msg string) (ir.Origin, bool) {
	if m := taskRE.FindStringSubmatch(msg); m != nil {
		if t, ok := pm.Names[ir.Named{Kind: "task", Name: m[1]}]; ok {
			if s := stepRE.FindStringSubmatch(msg); s != nil {
				if n, err := strconv.Atoi(s[1]); err == nil && n >= 1 {
					if o, ok := pm.Names[ir.Named{Kind: "task", Name: m[1], Step: n}]; ok {
						return o, true
					}
				}
			}
			return t, true
		}
	}
	if m := toolRE.FindStringSubmatch(msg); m != nil {
		if o, ok := pm.Names[ir.Named{Kind: "tool", Name: m[1] + m[2]}]; ok {
			return o, true
		}
	}
	if m := invariantRE.FindStringSubmatch(msg); m != nil {
		if o, ok := pm.Names[ir.Named{Kind: "invariant", Name: m[1]}]; ok {
			return o, true
		}
	}
	return ir.Origin{}, false
}

// splitPosCol splits "file:line[:col]"; col is 0 when absent.
func splitPosCol(pos string) (file string, line, col int, ok bool) {
	parts := strings.Split(pos, ":")
	if len(parts) < 2 {
		return "", 0, 0, false
	}
	n := len(parts) - 1
	if len(parts) >= 3 && isDigits(parts[n]) && isDigits(parts[n-1]) {
		col, _ = strconv.Atoi(parts[n])
		n--
	}
	line, err := strconv.Atoi(parts[n])
	if err != nil {
		return "", 0, 0, false
	}
	return strings.Join(parts[:n], ":"), line, col, true
}
