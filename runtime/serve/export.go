package serve

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/serve/eval"
)

// ManifestName is the file name of a bundle's manifest, at the bundle's
// root: Export writes it, Verify reads it, and worldc bundle takes a
// directory that holds one for a bundle it wrote.
const ManifestName = "manifest.json"

// Manifest is a bundle's manifest.json: what the bundle holds, with the
// hashes that `verify` checks. Members are written in this order.
type Manifest struct {
	Bundle        string          `json:"bundle"`
	WorldcVersion string          `json:"worldc_version"`
	GoVersion     string          `json:"go_version"`
	Runtime       string          `json:"runtime"` // the runtime's hash (h1:…)
	Binary        ManifestFile    `json:"binary"`
	Worlds        []ManifestWorld `json:"worlds"`
	// Files are the bundle's other files (README.md, rebuild.sh, client/,
	// src/), sorted by path: with the binary's and the worlds', every file
	// of the bundle is hashed.
	Files []ManifestFile `json:"files,omitempty"`
}

// ManifestFile is a file of the bundle and its SHA-256 (hex).
type ManifestFile struct {
	Path   string `json:"path"` // slash-separated, relative to the bundle
	SHA256 string `json:"sha256"`
}

// ManifestWorld describes one world of a bundle.
type ManifestWorld struct {
	Name     string `json:"name"`
	Title    string `json:"title"`
	Industry string `json:"industry"`
	Country  string `json:"country"`
	Currency string `json:"currency"`
	Tools    int    `json:"tools"`
	Tasks    int    `json:"tasks"`
	// Solutions is the number of tasks with a golden solution.
	Solutions int `json:"solutions"`
	// SpecSHA256 is the SHA-256 of the spec the world was compiled from,
	// when it was built from a spec.
	SpecSHA256 string `json:"spec_sha256,omitempty"`
	// SeedStateHash is the state hash of a fresh episode of the world seed.
	SeedStateHash string `json:"seed_state_hash"`
	// Files are the world's files in the bundle, sorted by path.
	Files []ManifestFile `json:"files"`
}

// ExportOptions configures Export.
type ExportOptions struct {
	Bundle string // the bundle's name
	// ServerURL is where trainer configurations point MCP clients; default
	// http://127.0.0.1:8080.
	ServerURL string
}

// Export writes the per-world files of a bundle below dir and dir/manifest.json
// (without the binary's hash and the versions, which the bundler adds):
//
//	worlds/<w>/policy.md          the visible policy
//	worlds/<w>/tools.openai.json  chat-completions function tools
//	worlds/<w>/tools.mcp.json     the MCP tools/list result
//	worlds/<w>/tasks.jsonl        one task a line, no solutions
//	worlds/<w>/solutions.jsonl    golden trajectories with observations and state hashes
//	trainers/verl/<w>.tool_config.yaml, trainers/verl/<w>.jsonl (see trainers.go)
//	trainers/verl/agent_loop.yaml (the agent loop of tasks that grade an answer)
//	trainers/nemo_gym/<w>.jsonl
//
// Output is deterministic for the same worlds.
func Export(worlds []runtime.World, dir string, opts ExportOptions) error {
	if opts.ServerURL == "" {
		opts.ServerURL = "http://127.0.0.1:8080"
	}
	m := Manifest{Bundle: opts.Bundle}
	for _, w := range worlds {
		mw, err := exportWorld(w, dir, opts)
		if err != nil {
			return fmt.Errorf("world %s: %w", w.Info().Name, err)
		}
		m.Worlds = append(m.Worlds, mw)
	}
	slices.SortFunc(m.Worlds, func(a, b ManifestWorld) int { return strings.Compare(a.Name, b.Name) })
	loop, err := verlAgentLoopConfig()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "trainers", "verl"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "trainers", "verl", "agent_loop.yaml"), loop, 0o644); err != nil {
		return err
	}
	data, err := marshalIndent(m)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ManifestName), data, 0o644)
}

// TaskRow is a line of tasks.jsonl.
type TaskRow struct {
	World       string `json:"world"`
	TaskID      string `json:"task_id"`
	Persona     string `json:"persona"`
	Instruction string `json:"instruction"`
	// Clock is the date and time the task runs on ("today", "now"): its
	// own clock, else the world's.
	eval.Clock
	Tags   runtime.TaskTags `json:"tags"`
	Meta   runtime.Meta     `json:"meta,omitempty"`
	Rubric []string         `json:"rubric"` // the assertions as the spec writes them
	// Answer: the rubric grades the agent's final message (`answer EXPR`);
	// send it with the grade.
	Answer bool `json:"answer,omitempty"`
}

// SolutionRow is a line of solutions.jsonl: a golden trajectory.
type SolutionRow struct {
	World       string `json:"world"`
	TaskID      string `json:"task_id"`
	Instruction string `json:"instruction"`
	// Clock is the date and time the trajectory ran on ("today", "now").
	eval.Clock
	Steps          []runtime.Step `json:"steps"`
	FinalStateHash string         `json:"final_state_hash"`
	// Answer is the golden final message, for a task that grades one: the
	// values its answer assertions expect on the final state, one a line
	// (runtime.AnswerGrader's GoldenAnswer). Reward is the grade with it.
	Answer *string `json:"answer,omitempty"`
	Reward float64 `json:"reward"`
}

func exportWorld(w runtime.World, dir string, opts ExportOptions) (ManifestWorld, error) {
	info := w.Info()
	tools, tasks := w.Tools(), w.Tasks()
	mw := ManifestWorld{Name: info.Name, Title: info.Title, Industry: info.Industry, Country: info.Country,
		Currency: info.Currency, Tools: len(tools), Tasks: len(tasks)}
	seed, err := w.NewEpisode("")
	if err != nil {
		return mw, err
	}
	mw.SeedStateHash = seed.StateHash()
	files := map[string][]byte{}
	wdir := "worlds/" + info.Name + "/"
	files[wdir+"policy.md"] = []byte(w.Policy())

	var openai []json.RawMessage
	var mcpTools []json.RawMessage
	for _, t := range tools {
		openai = append(openai, t.OpenAI())
		mcpTools = append(mcpTools, t.MCP())
	}
	if files[wdir+"tools.openai.json"], err = marshalIndent(nonNil(openai)); err != nil {
		return mw, err
	}
	if files[wdir+"tools.mcp.json"], err = marshalIndent(map[string]any{"tools": nonNil(mcpTools)}); err != nil {
		return mw, err
	}

	var taskLines, solutionLines, verlLines, nemoLines [][]byte
	for i, t := range tasks {
		ep, err := w.NewEpisode(t.ID)
		if err != nil {
			return mw, err
		}
		var rubric []string
		initial := ep.Grade()
		for _, a := range initial.Assertions {
			rubric = append(rubric, a.Text)
		}
		// The trainers' prompts hold the policy with the task's clock.
		clock := eval.TaskClock(info, t)
		policy := eval.TaskPolicy(w.Policy(), info, clock)
		row := TaskRow{World: info.Name, TaskID: t.ID, Persona: t.Persona, Instruction: t.Instruction, Clock: clock, Tags: t.Tags, Meta: t.Meta, Rubric: nonNil(rubric), Answer: t.Answer}
		if err := appendLine(&taskLines, row); err != nil {
			return mw, err
		}
		if err := appendLine(&verlLines, verlRow(info, policy, clock, t, i, tools, initial.Reward)); err != nil {
			return mw, err
		}
		if err := appendLine(&nemoLines, nemoRow(info, policy, clock, t, tools)); err != nil {
			return mw, err
		}
		if t.Solution == nil {
			continue
		}
		steps, err := runtime.Run(ep, t.Solution)
		if err != nil {
			return mw, fmt.Errorf("task %s: golden solution: %w", t.ID, err)
		}
		mw.Solutions++
		sol := SolutionRow{World: info.Name, TaskID: t.ID, Instruction: t.Instruction, Clock: clock, Steps: steps,
			FinalStateHash: ep.StateHash(), Answer: goldenAnswer(ep, t)}
		sol.Reward = eval.Grade(ep, sol.Answer).Reward
		if err := appendLine(&solutionLines, sol); err != nil {
			return mw, err
		}
	}
	files[wdir+"tasks.jsonl"] = bytes.Join(taskLines, nil)
	files[wdir+"solutions.jsonl"] = bytes.Join(solutionLines, nil)
	files["trainers/verl/"+info.Name+".jsonl"] = bytes.Join(verlLines, nil)
	files["trainers/nemo_gym/"+info.Name+".jsonl"] = bytes.Join(nemoLines, nil)
	if files["trainers/verl/"+info.Name+".tool_config.yaml"], err = verlToolConfig(info, tools, opts.ServerURL); err != nil {
		return mw, err
	}

	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return mw, err
		}
		if err := os.WriteFile(p, files[n], 0o644); err != nil {
			return mw, err
		}
		mw.Files = append(mw.Files, ManifestFile{Path: n, SHA256: sha256Hex(files[n])})
	}
	return mw, nil
}

// nemoRow is a NeMo Gym task row: Responses-API create parameters with
// flat function tools; policy is the one the task's agent is shown (with
// its clock, which the row also gives as today and now).
func nemoRow(info runtime.WorldInfo, policy string, clock eval.Clock, t runtime.TaskInfo, tools []runtime.ToolInfo) any {
	var flat []any
	for _, tool := range tools {
		var fn struct {
			Function struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
				Strict      bool            `json:"strict"`
			} `json:"function"`
		}
		_ = json.Unmarshal(tool.OpenAI(), &fn) // OpenAI() is always valid JSON
		flat = append(flat, map[string]any{"type": "function", "name": fn.Function.Name, "description": fn.Function.Description,
			"parameters": fn.Function.Parameters, "strict": fn.Function.Strict})
	}
	return map[string]any{
		"responses_create_params": map[string]any{
			"input": []map[string]string{
				{"role": "developer", "content": policy},
				{"role": "user", "content": t.Instruction},
			},
			"tools": nonNil(flat),
		},
		"world":   info.Name,
		"task_id": t.ID,
		"today":   clock.Today,
		"now":     clock.Now,
		// verify grades the response's final assistant text.
		"answer": t.Answer,
	}
}

// goldenAnswer is the golden final message of a task that grades one, on
// ep's state at the end of its golden solution; nil for other tasks.
func goldenAnswer(ep runtime.Episode, t runtime.TaskInfo) *string {
	a, ok := ep.(runtime.AnswerGrader)
	if !t.Answer || !ok {
		return nil
	}
	s := a.GoldenAnswer()
	return &s
}

func appendLine(lines *[][]byte, v any) error {
	b, err := marshalCompact(v)
	if err != nil {
		return err
	}
	*lines = append(*lines, append(b, '\n'))
	return nil
}

func marshalCompact(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func marshalIndent(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// FileSHA256 is the hex SHA-256 of a file.
func FileSHA256(p string) (string, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return "", err
	}
	return sha256Hex(data), nil
}

// cleanRel reports whether p is a clean relative slash path inside a
// bundle.
func cleanRel(p string) bool {
	return p != "" && path.Clean(p) == p && filepath.IsLocal(filepath.FromSlash(p))
}
