package author

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"text/template"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/docs"
	"github.com/worldc/worldc/dsl"
	"github.com/worldc/worldc/templates"
)

// Message is one chat message sent to the model.
type Message struct {
	Role    string `json:"role"` // system, user or assistant
	Content string `json:"content"`
}

// Prompts renders the loop's prompts from the templates in templates/author
// and from what worldc knows: the grammar, the language reference, the
// validators and an example world.
type Prompts struct {
	system, author, repair, brief *template.Template
	// Versions are the templates' declared versions, by template name.
	Versions map[string]string
	// Example is the example world of the author prompt.
	Example string
	// Structured asks for a JSON object {"spec": …} instead of a fenced
	// block (see Client's structured output).
	Structured bool
	// fingerprint hashes every input of the prompts.
	fingerprint string
}

var versionLine = regexp.MustCompile(`^\{\{- /\* version: ([a-z0-9.-]+) \*/ -\}\}`)

// LoadPrompts parses the embedded templates.
func LoadPrompts() (*Prompts, error) {
	return loadPrompts(templates.Author)
}

func loadPrompts(fsys fs.FS) (*Prompts, error) {
	p := &Prompts{Versions: map[string]string{}}
	h := sha256.New()
	for _, name := range []string{"system", "author", "repair", "brief"} {
		file := "author/" + name + ".md.tmpl"
		data, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, err
		}
		m := versionLine.FindSubmatch(data)
		if m == nil {
			return nil, fmt.Errorf("%s: the first line must declare the version: {{- /* version: NAME */ -}}", file)
		}
		p.Versions[name] = string(m[1])
		t, err := template.New(name).Option("missingkey=error").Parse(string(data))
		if err != nil {
			return nil, err
		}
		switch name {
		case "system":
			p.system = t
		case "author":
			p.author = t
		case "repair":
			p.repair = t
		case "brief":
			p.brief = t
		}
		fmt.Fprintf(h, "%s %d\n%s", file, len(data), data)
	}
	example, err := fs.ReadFile(fsys, "author/example.world")
	if err != nil {
		return nil, err
	}
	p.Example = string(example)
	for _, part := range []string{p.Example, docs.Language, dsl.Grammar(), fmt.Sprint(compiler.Validators())} {
		fmt.Fprintf(h, "%d\n%s", len(part), part)
	}
	p.fingerprint = hex.EncodeToString(h.Sum(nil))
	return p, nil
}

// Version is the prompt set's version as traces record it: the declared
// versions of the loop's templates and the start of the hash of everything
// the prompts are built from, so that a change that forgot to bump a
// version still changes it.
func (p *Prompts) Version() string {
	var names []string
	for n := range p.Versions {
		names = append(names, n)
	}
	slices.Sort(names)
	var parts []string
	for _, n := range names {
		parts = append(parts, p.Versions[n])
	}
	mode := ""
	if p.Structured {
		mode = "+json"
	}
	return strings.Join(parts, ",") + mode + "@" + p.fingerprint[:12]
}

type systemData struct {
	Structured bool
	Language   string
	Grammar    string
	Validators []compiler.Validator
	Example    string // empty: none
}

// System renders the system prompt; withExample adds the example world
// (the author prompt has it; repair prompts, which show a spec already,
// leave it out to stay small).
func (p *Prompts) System(withExample bool) (string, error) {
	d := systemData{
		Structured: p.Structured,
		Language:   strings.TrimSpace(docs.Language),
		Grammar:    strings.TrimSpace(dsl.Grammar()),
		Validators: compiler.Validators(),
	}
	if withExample {
		d.Example = strings.TrimRight(p.Example, "\n")
	}
	return render(p.system, d)
}

type authorData struct {
	WorldName, Brief, Taxonomy string
}

// Author is the messages of a first draft for b.
func (p *Prompts) Author(b Brief) ([]Message, error) {
	sys, err := p.System(true)
	if err != nil {
		return nil, err
	}
	user, err := render(p.author, authorData{WorldName: b.WorldName(), Brief: b.Brief, Taxonomy: b.Taxonomy()})
	if err != nil {
		return nil, err
	}
	return []Message{{"system", sys}, {"user", user}}, nil
}

// RepairInput is what a repair prompt is about.
type RepairInput struct {
	// Stage is "extract" (the reply had no usable spec), "check" or "gate".
	Stage string
	// Problem says what went wrong, for extract and gate.
	Problem string
	// File is the spec's file name in the findings; Spec its text.
	File, Spec string
	Findings   []Finding
	// Explain lists the codes whose explanation goes with the prompt
	// (those seen for the first time in this brief's loop).
	Explain []string
}

type repairData struct {
	Stage, Problem, WorldName, Brief, File, Spec, FindingsJSON string
	Findings                                                   []Finding
	Explain                                                    []explanation
}

type explanation struct {
	compiler.Validator
	Example string
}

// Repair is the messages asking to repair a spec for b. The conversation
// is not carried over: the request holds the brief, the spec and its
// findings, so that its size does not grow with the rounds.
func (p *Prompts) Repair(b Brief, in RepairInput) ([]Message, error) {
	sys, err := p.System(in.Stage == "extract")
	if err != nil {
		return nil, err
	}
	d := repairData{Stage: in.Stage, Problem: in.Problem, WorldName: b.WorldName(), Brief: b.Brief,
		File: in.File, Spec: strings.TrimRight(in.Spec, "\n"), Findings: in.Findings}
	if in.Stage != "extract" {
		d.FindingsJSON = strings.TrimRight(string(findingsJSON(in.Findings)), "\n")
	}
	for _, code := range in.Explain {
		v, ok := compiler.LookupValidator(diag.Code(code))
		if !ok {
			continue
		}
		ex, _ := compiler.Example(v.Code)
		d.Explain = append(d.Explain, explanation{Validator: v, Example: ex})
	}
	user, err := render(p.repair, d)
	if err != nil {
		return nil, err
	}
	return []Message{{"system", sys}, {"user", user}}, nil
}

// BriefRequest is the messages asking for a brief for a taxonomy sample.
func (p *Prompts) BriefRequest(s Sample) ([]Message, error) {
	user, err := render(p.brief, s)
	if err != nil {
		return nil, err
	}
	return []Message{{"user", user}}, nil
}

func render(t *template.Template, data any) (string, error) {
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return "", err
	}
	return strings.TrimSpace(b.String()) + "\n", nil
}

// EstimateTokens estimates the tokens of a text as its bytes divided by
// four, the usual rule of thumb for English and code with BPE tokenizers.
func EstimateTokens(s string) int { return (len(s) + 3) / 4 }

// MessagesTokens estimates the tokens of a request's messages.
func MessagesTokens(ms []Message) int {
	n := 0
	for _, m := range ms {
		n += EstimateTokens(m.Content) + 4 // role and separators
	}
	return n
}

// ExampleSource is the example world templates/author/example.world is a
// copy of, in testdata/worlds: the shortest of them.
const ExampleSource = "telecom_plans.world"

// FormatMessages renders messages as `worldc author --print-prompt` shows
// them: each under a line naming its role and estimated size.
func FormatMessages(ms []Message) string {
	var b strings.Builder
	for _, m := range ms {
		fmt.Fprintf(&b, "==== %s (%d bytes, about %d tokens)\n%s", m.Role, len(m.Content), EstimateTokens(m.Content), m.Content)
		if !strings.HasSuffix(m.Content, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
