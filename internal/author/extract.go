package author

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"
)

// ErrNoSpec is the error of a reply that holds no spec.
var ErrNoSpec = errors.New("the reply holds no spec: send the whole spec in a ```world fenced block")

// fence matches a fenced code block; the info string may be empty.
var fence = regexp.MustCompile("(?ms)^[ \t]*```[ \t]*([A-Za-z0-9_-]*)[^\n]*\n(.*?)^[ \t]*```[ \t]*$")

// Extract returns the spec in a model's reply: the `spec` member of a JSON
// object (structured output), else the first fenced block tagged world,
// else the only fenced block, else the reply itself when it starts with a
// world header. A reply that looks like JSON but does not parse, or holds
// no spec, is an error that says so.
func Extract(content string) (string, error) {
	trimmed := strings.TrimSpace(content)
	if strings.HasPrefix(trimmed, "{") && !strings.HasPrefix(trimmed, "{{") {
		var obj struct {
			Spec *string `json:"spec"`
		}
		if err := json.Unmarshal([]byte(trimmed), &obj); err != nil {
			return "", errors.New("the reply is not valid JSON: " + err.Error())
		}
		if obj.Spec == nil || strings.TrimSpace(*obj.Spec) == "" {
			return "", errors.New(`the JSON reply has no "spec" member with the spec`)
		}
		return strings.TrimSpace(*obj.Spec) + "\n", nil
	}
	blocks := fence.FindAllStringSubmatch(content, -1)
	for _, b := range blocks {
		if b[1] == "world" {
			return ensureNewline(b[2]), nil
		}
	}
	if len(blocks) == 1 && strings.TrimSpace(blocks[0][2]) != "" {
		return ensureNewline(blocks[0][2]), nil
	}
	if strings.HasPrefix(trimmed, "world ") || strings.HasPrefix(trimmed, "//") && strings.Contains(trimmed, "\nworld ") {
		return trimmed + "\n", nil
	}
	return "", ErrNoSpec
}

func ensureNewline(s string) string {
	s = strings.TrimLeft(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}
