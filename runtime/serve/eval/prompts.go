package eval

import (
	"bytes"
	"embed"
	"fmt"
	"regexp"
	"text/template"

	"github.com/worldc/worldc/runtime"
)

// The prompt templates travel in the bundle binary: runtime/serve/eval/
// templates, text/templates whose first line declares their version
// (`{{- /* version: agent-2 */ -}}`), as worldc's authoring prompts do. The
// versions are recorded in run.json, in every trajectory's first line and
// in the summary; a run resumes only with the same versions.
//
//go:embed templates/*.tmpl
var templateFS embed.FS

// StopToken is what the simulated user says to end the conversation
// (tau2-bench's).
const StopToken = "###STOP###"

// Greeting is the agent's opening line as the simulated user sees it
// (tau2-bench's): the user's first message answers it. The agent's own
// conversation starts with that message.
const Greeting = "Hi! How can I help you today?"

type prompts struct {
	agent, user *template.Template
	versions    map[string]string
}

var versionLine = regexp.MustCompile(`^\{\{- /\* version: ([a-z0-9.-]+) \*/ -\}\}`)

func loadPrompts() (*prompts, error) {
	p := &prompts{versions: map[string]string{}}
	for _, name := range []string{"agent", "user"} {
		file := "templates/" + name + ".md.tmpl"
		data, err := templateFS.ReadFile(file)
		if err != nil {
			return nil, err
		}
		m := versionLine.FindSubmatch(data)
		if m == nil {
			return nil, fmt.Errorf("%s: the first line must declare the version: {{- /* version: NAME */ -}}", file)
		}
		p.versions[name] = string(m[1])
		t, err := template.New(name).Option("missingkey=error").Parse(string(data))
		if err != nil {
			return nil, err
		}
		if name == "agent" {
			p.agent = t
		} else {
			p.user = t
		}
	}
	return p, nil
}

// promptData is what the templates are rendered with. Today and Now are
// the task's clock (TaskClock); Policy is the world's policy as the task's
// agent is shown it (TaskPolicy: it says the task's date and time).
type promptData struct {
	Title, Today, Now, Persona, Instruction, Policy, Stop string
	Simulated                                             bool
}

func newPromptData(w runtime.World, t runtime.TaskInfo, simulated bool) promptData {
	info := w.Info()
	c := TaskClock(info, t)
	return promptData{Title: info.Title, Today: c.Today.String(), Now: c.Now.String(), Persona: t.Persona, Instruction: t.Instruction,
		Policy: TaskPolicy(w.Policy(), info, c), Stop: StopToken, Simulated: simulated}
}

func render(t *template.Template, d promptData) (string, error) {
	var b bytes.Buffer
	if err := t.Execute(&b, d); err != nil {
		return "", err
	}
	return b.String(), nil
}
