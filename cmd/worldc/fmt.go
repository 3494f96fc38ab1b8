package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/dsl"
	"github.com/worldc/worldc/internal/pipeline"
	"github.com/worldc/worldc/internal/safefs"
)

type fmtCmd struct {
	List  bool     `short:"l" help:"List files whose formatting differs from worldc fmt's."`
	Write bool     `short:"w" help:"Rewrite files whose formatting differs, in place."`
	Paths []string `arg:"" name:"path" help:"Spec files, directories or dir/... patterns; - for standard input."`
}

// Run formats like gofmt: without flags, print every file formatted; -l
// lists the files that differ, -w rewrites them (atomically, only those
// that change). A file that does not parse is reported and left untouched,
// and the status is 1.
func (c *fmtCmd) Run(sys *stdio) error {
	files, err := pipeline.Expand(sys.cwd, c.Paths)
	if err != nil {
		return err
	}
	failed := false
	for _, f := range files {
		if err := c.format(sys, f); err != nil {
			failed = true
			printFormatError(sys, f, err)
		}
	}
	if failed {
		return exitError(exitFailure)
	}
	return nil
}

func (c *fmtCmd) format(sys *stdio, f pipeline.Spec) error {
	if c.Write && f.IsStdin() {
		return errors.New("cannot rewrite standard input in place (-w)")
	}
	src, err := f.Read(sys.stdin)
	if err != nil {
		return err
	}
	out, err := dsl.FormatSource(f.Name, src)
	if err != nil {
		return err
	}
	changed := !bytes.Equal(src, out)
	if c.List && changed {
		fmt.Fprintln(sys.stdout, f.Name)
	}
	if c.Write && changed {
		// The user named this file: a symbolic link is followed to the
		// spec it stands for, as gofmt -w does (a directory walk never
		// yields links).
		target, err := filepath.EvalSymlinks(f.Path)
		if err != nil {
			return err
		}
		if err := safefs.WriteFile(target, out); err != nil {
			return err
		}
	}
	if !c.List && !c.Write {
		_, err = sys.stdout.Write(out)
	}
	return err
}

// printFormatError reports a syntax error as the W001 diagnostic check
// would print, and any other error as one line naming the file.
func printFormatError(sys *stdio, f pipeline.Spec, err error) {
	var pe *dsl.Error
	if errors.As(err, &pe) {
		d := compiler.Diagnostic{
			Code: diag.Syntax, Severity: compiler.SeverityError, Message: pe.Msg,
			File: f.Name, Line: pe.Pos.Line, Col: pe.Pos.Column,
		}
		fmt.Fprintln(sys.stderr, d.String())
		return
	}
	fmt.Fprintf(sys.stderr, "worldc: %s: %v\n", f.Name, pathErrorCause(err))
}

// pathErrorCause drops the operation and path of an *fs.PathError: the
// file is named already where it is reported.
func pathErrorCause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
