package gate

import (
	"fmt"
	"os/exec"
	"strings"
)

// GoVersion is the version of the go command the gate runs
// (`go env GOVERSION`).
func GoVersion() (string, error) {
	out, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOVERSION: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}
