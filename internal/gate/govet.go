package gate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// testVetFlags are the analyzers go test runs (its "high-confidence
// subset" of go vet): the linked gate runs the same, so that linking never
// changes a verdict.
var testVetFlags = []string{"-atomic", "-bool", "-buildtags", "-directive", "-errorsas", "-ifaceassert", "-nilfunc", "-printf", "-stringintconv", "-tests"}

// vetFinding is one diagnostic of `go vet -json`.
type vetFinding struct {
	Posn    string `json:"posn"`
	Message string `json:"message"`
}

// goVet runs go test's vet analyzers once over pkgs and returns the
// findings of each package that has any, as gate errors.
func goVet(ctx context.Context, pkgs []string, opts *VetOptions) (map[string][]Error, error) {
	args := append([]string{"vet", "-json"}, testVetFlags...)
	cmd, remove, err := goCommand(ctx, opts, append(args, pkgs...)...)
	if err != nil {
		return nil, err
	}
	defer remove()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	if err := ctx.Err(); err != nil {
		return nil, err // a stopped vet's findings are partial
	}
	out := map[string][]Error{}
	dec := json.NewDecoder(&stdout)
	for {
		var byPkg map[string]map[string]json.RawMessage
		err := dec.Decode(&byPkg)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("go vet: reading its output: %w", err)
		}
		for pkg, analyzers := range byPkg {
			names := make([]string, 0, len(analyzers))
			for a := range analyzers {
				names = append(names, a)
			}
			slices.Sort(names)
			for _, a := range names {
				var fs []vetFinding
				if json.Unmarshal(analyzers[a], &fs) != nil {
					continue // {"error": …}: the package did not load; go test will say why
				}
				for _, f := range fs {
					out[importPathOf(pkg)] = append(out[importPathOf(pkg)], Error{Go: f.Posn, Message: "vet: " + f.Message})
				}
			}
		}
	}
	if runErr != nil && len(out) == 0 {
		// A package that does not build is left to go test, which reports
		// it with its build errors; anything else is a gate failure.
		if msg := strings.TrimSpace(stderr.String()); msg != "" && !strings.Contains(msg, "# ") {
			return nil, fmt.Errorf("go vet: %v: %s", runErr, firstLine(msg))
		}
	}
	return out, nil
}
