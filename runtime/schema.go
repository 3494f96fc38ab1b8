package runtime

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
)

// StrictSchema reports why a JSON schema cannot be used in OpenAI's strict
// mode, or nil when it can: every object must have "additionalProperties":
// false and list all its properties in "required". A map — an object whose
// additionalProperties is a schema — is the one shape of worldc's schemas
// that strict mode cannot express.
func StrictSchema(schema json.RawMessage) error {
	var v any
	if err := json.Unmarshal(schema, &v); err != nil {
		return err
	}
	return strictNode("", v)
}

func strictNode(path string, v any) error {
	n, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	if isObjectSchema(n) {
		switch ap := n["additionalProperties"].(type) {
		case bool:
			if ap {
				return fmt.Errorf("%sadditionalProperties must be false", at(path))
			}
		case map[string]any:
			return fmt.Errorf("%sa map (additionalProperties is a schema) has no strict form", at(path))
		default:
			return fmt.Errorf(`%swant "additionalProperties": false`, at(path))
		}
		props, _ := n["properties"].(map[string]any)
		req := map[string]bool{}
		if rs, ok := n["required"].([]any); ok {
			for _, r := range rs {
				if s, ok := r.(string); ok {
					req[s] = true
				}
			}
		}
		for _, k := range sortedKeys(props) {
			if !req[k] {
				return fmt.Errorf("%sproperty %q is not listed in \"required\"", at(path), k)
			}
		}
	}
	return walkSchema(path, n, strictNode)
}

// nestedSchemaProblems checks the objects nested in a tool's parameter
// schema as CheckTools checks the top level: every object with properties
// forbids additional properties and lists them all as required. Maps are
// fine.
func nestedSchemaProblems(schema json.RawMessage) []error {
	var v map[string]any
	if json.Unmarshal(schema, &v) != nil {
		return nil // CheckTools reports it
	}
	var errs []error
	var check func(path string, v any) error
	check = func(path string, v any) error {
		n, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		if path != "" && isObjectSchema(n) {
			if _, isMap := n["additionalProperties"].(map[string]any); !isMap {
				if ap, ok := n["additionalProperties"].(bool); !ok || ap {
					errs = append(errs, fmt.Errorf(`%swant "additionalProperties": false`, at(path)))
				}
				props, _ := n["properties"].(map[string]any)
				rs, _ := n["required"].([]any)
				for _, k := range sortedKeys(props) {
					if !slices.Contains(rs, any(k)) {
						errs = append(errs, fmt.Errorf("%sproperty %q is not listed in \"required\"", at(path), k))
					}
				}
			}
		}
		walkSchema(path, n, check)
		return nil
	}
	check("", v)
	return errs
}

// isObjectSchema reports whether the schema node describes objects.
func isObjectSchema(n map[string]any) bool {
	if _, ok := n["properties"]; ok {
		return true
	}
	switch t := n["type"].(type) {
	case string:
		return t == "object"
	case []any:
		return slices.Contains(t, any("object"))
	}
	return false
}

// walkSchema calls f on the sub-schemas of n: properties, items, anyOf
// branches, additionalProperties and $defs, stopping at the first error.
func walkSchema(path string, n map[string]any, f func(path string, v any) error) error {
	if props, ok := n["properties"].(map[string]any); ok {
		for _, k := range sortedKeys(props) {
			if err := f(path+"."+k, props[k]); err != nil {
				return err
			}
		}
	}
	if items, ok := n["items"]; ok {
		if err := f(path+"[]", items); err != nil {
			return err
		}
	}
	if ap, ok := n["additionalProperties"].(map[string]any); ok {
		if err := f(path+"[*]", ap); err != nil {
			return err
		}
	}
	if branches, ok := n["anyOf"].([]any); ok {
		for i, b := range branches {
			if err := f(fmt.Sprintf("%s(anyOf %d)", path, i), b); err != nil {
				return err
			}
		}
	}
	if defs, ok := n["$defs"].(map[string]any); ok {
		for _, k := range sortedKeys(defs) {
			if err := f("$defs."+k, defs[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

// at names the schema node at path in a message.
func at(path string) string {
	if path == "" {
		return ""
	}
	if path[0] == '.' {
		path = path[1:]
	}
	return "property " + path + ": "
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
