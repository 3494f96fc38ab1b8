package bundle

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/tasks"
	"github.com/worldc/worldc/gen"
	"github.com/worldc/worldc/internal/graphsvg"
	"github.com/worldc/worldc/internal/output"
	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/serve"
)

// specWorlds checks and generates example worlds of the repository.
func specWorlds(t *testing.T, names ...string) []World {
	t.Helper()
	var out []World
	for _, n := range names {
		file := filepath.Join("..", "..", "testdata", "worlds", n+".world")
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		w, diags := compiler.CheckSource(file, src)
		if w == nil {
			t.Fatalf("%s: %s", file, diags.Text())
		}
		files, err := gen.Generate(w)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, World{Name: w.Name, Files: files, SpecSHA256: "test", Graph: tasks.BuildGraph(w).SVG()})
	}
	return out
}

func build(t *testing.T, dir string, worlds []World) *serve.Manifest {
	t.Helper()
	rt, err := output.EmbeddedRuntime()
	if err != nil {
		t.Fatal(err)
	}
	m, err := Build(context.Background(), worlds, Options{Name: "demo", Dir: dir, Version: "test", Runtime: rt})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// readJSONL decodes a JSON Lines file into maps.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func readJSONL(t *testing.T, p string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for line := range strings.Lines(string(data)) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out = append(out, m)
	}
	return out
}

// has walks a path of object keys (and "0" for the first element of an
// array) and reports whether a value is there.
func has(v any, path ...string) bool {
	for _, k := range path {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[k]; !ok {
				return false
			}
		case []any:
			if k != "0" || len(x) == 0 {
				return false
			}
			v = x[0]
		default:
			return false
		}
	}
	return v != nil
}

// TestBundle builds a bundle of two example worlds and uses it as a
// trainer would: verify, the documented file shapes, the server over each
// protocol with clients written by others (the Python client, the MCP
// TypeScript SDK), stdio, and a graceful stop.
func TestBundle(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a server binary (-short skips it; make test runs it)")
	}
	dir := t.TempDir()
	worlds := specWorlds(t, "insurance_claims", "hospital_scheduling")
	m := build(t, dir, worlds)
	bin := filepath.Join(dir, "bin", "demo")

	t.Run("manifest", func(t *testing.T) {
		if len(m.Worlds) != 2 || m.Worlds[0].Name != "hospital_scheduling" || m.Binary.Path != "bin/demo" || m.Runtime == "" || m.GoVersion == "" {
			t.Fatalf("manifest: %+v", m)
		}
		for _, w := range m.Worlds {
			if w.Tools == 0 || w.Tasks == 0 || w.Solutions == 0 || w.SeedStateHash == "" || len(w.Files) < 8 {
				t.Errorf("world %s: %+v", w.Name, w)
			}
		}
		raw, _ := os.ReadFile(filepath.Join(dir, "manifest.json"))
		order := []string{`"bundle"`, `"worldc_version"`, `"go_version"`, `"runtime"`, `"binary"`, `"worlds"`}
		last := -1
		for _, k := range order {
			i := bytes.Index(raw, []byte(k))
			if i < last {
				t.Errorf("manifest.json: %s out of order", k)
			}
			last = i
		}
	})

	t.Run("trainer files", func(t *testing.T) {
		w := "insurance_claims"
		var cfg map[string]any
		data, _ := os.ReadFile(filepath.Join(dir, "trainers", "verl", w+".tool_config.yaml"))
		if err := json.Unmarshal(data, &cfg); err != nil {
			t.Fatal(err)
		}
		tool := cfg["tools"].([]any)[0].(map[string]any)
		if tool["class_name"] == "" || !has(tool, "config", "type") || tool["config"].(map[string]any)["type"] != "native" || tool["class_name"] != serve.VerlToolClass ||
			tool["tool_schema"].(map[string]any)["type"] != "function" || !has(tool, "tool_schema", "function", "name") || !has(tool, "tool_schema", "function", "parameters") {
			t.Errorf("verl tool config entry: %v", tool)
		}
		for _, row := range readJSONL(t, filepath.Join(dir, "trainers", "verl", w+".jsonl")) {
			if !has(row, "data_source") || !has(row, "prompt", "0", "content") || !has(row, "extra_info", "tools_kwargs") {
				t.Errorf("verl row: %v", row)
			}
		}
		for _, row := range readJSONL(t, filepath.Join(dir, "trainers", "nemo_gym", w+".jsonl")) {
			tools, _ := row["responses_create_params"].(map[string]any)["tools"].([]any)
			if !has(row, "responses_create_params", "input", "0", "content") || len(tools) == 0 {
				t.Fatalf("NeMo Gym row: %v", row)
			}
			ft := tools[0].(map[string]any)
			if ft["type"] != "function" || ft["name"] == nil || ft["parameters"] == nil || ft["strict"] == nil || ft["function"] != nil {
				t.Errorf("NeMo Gym tool is not a flat Responses-API tool: %v", ft)
			}
		}
		for _, row := range readJSONL(t, filepath.Join(dir, "worlds", w, "tasks.jsonl")) {
			if row["solution"] != nil || !has(row, "rubric", "0") || !has(row, "instruction") {
				t.Errorf("tasks.jsonl row: %v", row)
			}
		}
		var mcpTools map[string][]map[string]any
		data, _ = os.ReadFile(filepath.Join(dir, "worlds", w, "tools.mcp.json"))
		if err := json.Unmarshal(data, &mcpTools); err != nil || len(mcpTools["tools"]) == 0 || mcpTools["tools"][0]["inputSchema"] == nil {
			t.Errorf("tools.mcp.json: %v %s", err, data)
		}
	})

	t.Run("reproducible", func(t *testing.T) {
		again := build(t, t.TempDir(), worlds)
		if again.Binary.SHA256 != m.Binary.SHA256 {
			t.Errorf("two builds: binary %s and %s", m.Binary.SHA256, again.Binary.SHA256)
		}
		a, _ := json.Marshal(m.Worlds)
		b, _ := json.Marshal(again.Worlds)
		if !bytes.Equal(a, b) {
			t.Error("two builds: the manifests' worlds differ")
		}
	})

	t.Run("graph", func(t *testing.T) {
		// Each world's tool-dependency graph beside the README, linked
		// from its table and hashed in the manifest.
		readme, _ := os.ReadFile(filepath.Join(dir, "README.md"))
		for _, w := range worlds {
			p := "graphs/" + w.Name + ".svg"
			svg, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
			if err != nil || !bytes.Equal(svg, w.Graph) {
				t.Fatalf("%s: %v", p, err)
			}
			if err := graphsvg.Check(svg); err != nil {
				t.Errorf("%s: %v", p, err)
			}
			if !bytes.Contains(readme, []byte("| ["+p+"]("+p+") |")) {
				t.Errorf("the README does not link %s", p)
			}
			if !slices.ContainsFunc(m.Files, func(f serve.ManifestFile) bool { return f.Path == p }) {
				t.Errorf("the manifest does not hash %s", p)
			}
		}
	})

	t.Run("verify", func(t *testing.T) {
		out, err := exec.Command(bin, "verify").CombinedOutput()
		if err != nil || !strings.HasPrefix(string(out), "ok  2 worlds") {
			t.Fatalf("verify: %v\n%s", err, out)
		}
		policy := filepath.Join(dir, "worlds", "insurance_claims", "policy.md")
		orig, _ := os.ReadFile(policy)
		os.WriteFile(policy, append(orig, "tampered\n"...), 0o644)
		defer os.WriteFile(policy, orig, 0o644)
		out, err = exec.Command(bin, "verify").CombinedOutput()
		if err == nil || !strings.Contains(string(out), "worlds/insurance_claims/policy.md: sha256") {
			t.Errorf("verify of a tampered bundle: %v\n%s", err, out)
		}
		// Every file is hashed: the README, the client, the source too.
		for _, p := range []string{"README.md", "client/worldc_verl.py", "src/main.go"} {
			f := filepath.Join(dir, filepath.FromSlash(p))
			orig, _ := os.ReadFile(f)
			os.WriteFile(f, append(orig, " "...), 0o644)
			out, err = exec.Command(bin, "verify").CombinedOutput()
			os.WriteFile(f, orig, 0o644)
			if err == nil || !strings.Contains(string(out), p+": sha256") {
				t.Errorf("verify with %s changed: %v\n%s", p, err, out)
			}
		}
	})

	t.Run("rebuild", func(t *testing.T) {
		// rebuild.sh builds src/ as worldc did; the new binary's verify
		// checks its own hash against the manifest.
		out, err := exec.Command("sh", filepath.Join(dir, "rebuild.sh")).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "ok  2 worlds") {
			t.Fatalf("rebuild.sh: %v\n%s", err, out)
		}
		readme, _ := os.ReadFile(filepath.Join(dir, "README.md"))
		if !strings.Contains(string(readme), "rebuild.sh") || strings.Contains(string(readme), "cd src && CGO_ENABLED=0 go build -trimpath -o") {
			t.Error("the README does not point at rebuild.sh")
		}
	})

	sol := readJSONL(t, filepath.Join(dir, "worlds", "insurance_claims", "solutions.jsonl"))[0]
	taskID := sol["task_id"].(string)
	step := sol["steps"].([]any)[0].(map[string]any)
	stepTool := step["tool"].(string)
	stepArgs, _ := json.Marshal(step["args"])
	stepObs, _ := json.Marshal(step["observation"])

	t.Run("stdio", func(t *testing.T) {
		in := strings.Join([]string{
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, stepTool, stepArgs),
		}, "\n") + "\n"
		// A client keeps stdin open until it has its answers.
		result := filepath.Join(t.TempDir(), "result.json")
		cmd := exec.Command(bin, "stdio", "--world", "insurance_claims", "--task", taskID, "--grade-to", result)
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		io.WriteString(stdin, in)
		var resp struct {
			ID     int `json:"id"`
			Result struct {
				Content []struct{ Text string } `json:"content"`
			} `json:"result"`
		}
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for resp.ID != 2 && sc.Scan() {
			if err := json.Unmarshal(sc.Bytes(), &resp); err != nil {
				t.Fatalf("stdio reply: %v\n%s", err, sc.Bytes())
			}
		}
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("stdio exit: %v", err)
		}
		if resp.ID != 2 || len(resp.Result.Content) == 0 {
			t.Fatalf("no answer to tools/call: %+v", resp)
		}
		if !jsonEqual(resp.Result.Content[0].Text, string(stepObs)) {
			t.Errorf("stdio observation %s, golden %s", resp.Result.Content[0].Text, stepObs)
		}
		var graded struct {
			Task       string
			Grade      struct{ Assertions []any }
			Trajectory []any
		}
		data, err := os.ReadFile(result)
		if err != nil || json.Unmarshal(data, &graded) != nil || graded.Task != taskID || len(graded.Grade.Assertions) == 0 || len(graded.Trajectory) != 1 {
			t.Errorf("--grade-to: %v %s", err, data)
		}
	})

	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--grace", "5s", "--control-token", "test-token")
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() {
		t.Fatal("serve printed nothing")
	}
	url, ok := strings.CutPrefix(sc.Text(), "listening on ")
	if !ok {
		t.Fatalf("serve: %q", sc.Text())
	}

	t.Run("python client", func(t *testing.T) {
		script := fmt.Sprintf(`
import json, sys
sys.path.insert(0, %q)
from worldc_client import Client, WorldcError
c = Client(%q, token="test-token")
assert [w["name"] for w in c.worlds()] == ["hospital_scheduling", "insurance_claims"], c.worlds()
try:
    Client(c.url, token="").episode("insurance_claims")
    raise SystemExit("an episode opened without the control token")
except WorldcError as e:
    assert e.code == "unauthorized" and e.status == 401, e
with c.episode("insurance_claims", %q) as ep:
    obs = ep.call(%q, **json.loads(%q))
    assert ep.grade()["reward"] >= 0
    steps = ep.trajectory()
    assert len(steps) == 1
    bad = ep.call("no_such_tool")
    assert bad["ok"] is False and bad["error"]["code"] == "unknown_tool", bad
try:
    c.episode("nowhere")
    raise SystemExit("no error for an unknown world")
except WorldcError as e:
    assert e.code == "unknown_world" and e.status == 404, e
print(json.dumps(obs, sort_keys=True))
`, filepath.Join(dir, "client"), url, taskID, stepTool, string(stepArgs))
		out, err := exec.Command("python3", "-c", script).CombinedOutput()
		if err != nil {
			t.Fatalf("python3: %v\n%s", err, out)
		}
		if !jsonEqual(strings.TrimSpace(string(out)), string(stepObs)) {
			t.Errorf("python observation %s, golden %s", out, stepObs)
		}
	})

	t.Run("python client answers", func(t *testing.T) {
		// A task that grades the final message: grade(answer=...) sends it.
		var ans map[string]any
		for _, row := range readJSONL(t, filepath.Join(dir, "worlds", "insurance_claims", "solutions.jsonl")) {
			if row["answer"] != nil {
				ans = row
				break
			}
		}
		if ans == nil {
			t.Fatal("no golden trajectory of insurance_claims has an answer")
		}
		script := fmt.Sprintf(`
import json, sys
sys.path.insert(0, %q)
from worldc_client import Client, WorldcError
sol = json.loads(%q)
c = Client(%q, token="test-token")
with c.episode("insurance_claims", sol["task_id"]) as ep:
    assert ep.needs_answer is True
    for st in sol["steps"]:
        ep.call_with(st["tool"], st["args"])
    right = ep.grade(answer="Here it is: " + sol["answer"])
    assert right["reward"] == sol["reward"] == 1.0, right
    none = ep.grade()
    assert none["reward"] < 1 and any("no answer given" in a.get("detail", "") for a in none["assertions"]), none
    assert ep.grade(answer="I do not know.")["reward"] < 1
    try:
        ep.grade(answer=5)
        raise SystemExit("a non-string answer was sent")
    except TypeError:
        pass
    try:
        ep.grade(answer="x" * 70000)
        raise SystemExit("an answer over 64 KiB was taken")
    except WorldcError as e:
        assert e.status == 400 and e.code == "invalid_answer", e
with c.episode("insurance_claims", %q) as ep:
    assert ep.needs_answer is False
print("ok")
`, filepath.Join(dir, "client"), mustJSON(t, ans), url, taskID)
		out, err := exec.Command("python3", "-c", script).CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "ok" {
			t.Fatalf("python3: %v\n%s", err, out)
		}
	})

	t.Run("python client clock", func(t *testing.T) {
		// The episode's date and time: a task's own clock, else the world's.
		script := fmt.Sprintf(`
import sys
sys.path.insert(0, %q)
from worldc_client import Client
c = Client(%q, token="test-token")
tasks = {t["id"]: t for t in c.tasks("insurance_claims")}
for task, today, now, say in [("decide_overdue_windscreen_claim", "2026-05-22", "2026-05-22T00:00:00Z", "Friday, 2026-05-22"),
                              ("settle_water_damage_claim", "2026-05-12", "2026-05-12T00:00:00Z", "Tuesday, 2026-05-12")]:
    assert (tasks[task]["today"], tasks[task]["now"]) == (today, now), tasks[task]
    with c.episode("insurance_claims", task) as ep:
        assert (ep.today, ep.now) == (today, now), (ep.today, ep.now)
        assert "- Today is %%s; the time is 00:00 UTC (%%s)." %% (say, now) in ep.policy, ep.policy[:400]
        assert "Today's date: 2026-05-12" not in ep.policy
    with c.episode("insurance_claims", task, lite=True) as ep:
        assert (ep.today, ep.now) == (today, now) and ep.policy == ""
print("ok")
`, filepath.Join(dir, "client"), url)
		out, err := exec.Command("python3", "-c", script).CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "ok" {
			t.Fatalf("python3: %v\n%s", err, out)
		}
	})

	t.Run("verl", func(t *testing.T) {
		// Debian's python3-omegaconf is under /usr/bin/python3 (.ci/run
		// installs it): the verl files are loaded with verl's own loader.
		if err := exec.Command("/usr/bin/python3", "-c", "import omegaconf").Run(); err != nil {
			t.Fatalf("/usr/bin/python3 cannot import omegaconf (%v): apt-get install -y python3-omegaconf (.ci/run installs it)", err)
		}
		cmd := exec.Command("/usr/bin/python3", filepath.Join("testdata", "verl_test.py"), dir, url)
		cmd.Env = append(os.Environ(), "WORLDC_CONTROL_TOKEN=test-token", "WORLDC_SERVER_URL="+url)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "ok verl: 2 worlds") {
			t.Fatalf("verl: %v\n%s", err, out)
		}
		t.Logf("%s", out)
	})

	t.Run("MCP TypeScript SDK", func(t *testing.T) {
		nodeDir, err := filepath.Abs(filepath.Join("testdata", "node"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(nodeDir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("the MCP TypeScript SDK is not installed in %s (.ci/run runs npm ci there)", nodeDir)
			}
			t.Skipf("the MCP TypeScript SDK is not installed: run `npm ci --prefix %s` to test with it", nodeDir)
		}
		cmd := exec.Command("node", filepath.Join(nodeDir, "mcp_client.mjs"), url+"/mcp/insurance_claims?task="+taskID, stepTool, string(stepArgs))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("node: %v\n%s", err, out)
		}
		var got struct {
			Tools   []string
			Schema  map[string]any
			IsError bool
			Text    string
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%v in %s", err, out)
		}
		if len(got.Tools) != m.Worlds[1].Tools || got.Schema["type"] != "object" || !jsonEqual(got.Text, string(stepObs)) {
			t.Errorf("TypeScript client: %+v, golden observation %s", got, stepObs)
		}
	})

	t.Run("graceful stop", func(t *testing.T) {
		resp, err := http.Get(url + "/healthz")
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("healthz: %v", err)
		}
		resp.Body.Close()
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve after SIGTERM: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("serve did not stop on SIGTERM")
		}
	})

	t.Run("MCP TypeScript SDK capacity and resume", func(t *testing.T) {
		nodeDir, _ := filepath.Abs(filepath.Join("testdata", "node"))
		if _, err := os.Stat(filepath.Join(nodeDir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("the MCP TypeScript SDK is not installed in %s (.ci/run runs npm ci there)", nodeDir)
			}
			t.Skipf("the MCP TypeScript SDK is not installed: run `npm ci --prefix %s` to test with it", nodeDir)
		}
		state := t.TempDir()
		serveAt := func(addr string) (*exec.Cmd, string) {
			cmd := exec.Command(bin, "serve", "--addr", addr, "--max-episodes", "5", "--state-dir", state, "--control-token", "test-token")
			stdout, _ := cmd.StdoutPipe()
			cmd.Stderr = io.Discard
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			sc := bufio.NewScanner(stdout)
			if !sc.Scan() {
				t.Fatal("serve printed nothing")
			}
			go io.Copy(io.Discard, stdout)
			return cmd, strings.TrimPrefix(sc.Text(), "listening on ")
		}
		node := func(args ...string) map[string]any {
			t.Helper()
			out, err := exec.Command("node", append([]string{filepath.Join(nodeDir, "mcp_lifecycle.mjs")}, args...)...).CombinedOutput()
			var got map[string]any
			if err != nil || json.Unmarshal(out, &got) != nil {
				t.Fatalf("node %v: %v\n%s", args, err, out)
			}
			return got
		}
		srv, url := serveAt("127.0.0.1:0")
		endpoint := url + "/mcp/insurance_claims?task=" + taskID
		open := node("open", endpoint, stepTool, string(stepArgs))
		sid, _ := open["sessionId"].(string)
		if sid == "" || !jsonEqual(open["text"].(string), string(stepObs)) {
			t.Fatalf("open: %v", open)
		}
		// One session holds an episode; of 20 more, 4 fit, 16 are refused
		// at initialize (connect fails), and the 4 call tools.
		capa := node("capacity", endpoint, "20", stepTool, string(stepArgs))
		if capa["connected"] != 4.0 || capa["refused"] != 16.0 || capa["callsOK"] != 4.0 {
			t.Errorf("20 sessions on a server with room for 4: %v", capa)
		}
		// kill -9, start again on the same address: the first session goes on.
		srv.Process.Kill()
		srv.Wait()
		_, url2 := serveAt(strings.TrimPrefix(url, "http://"))
		if url2 != url {
			t.Fatalf("restarted on %s, was %s", url2, url)
		}
		resumed := node("resume", endpoint, sid, stepTool, string(stepArgs))
		var obs runtime.Observation
		if resumed["sessionId"] != sid || json.Unmarshal([]byte(resumed["text"].(string)), &obs) != nil {
			t.Errorf("resume: %v", resumed)
		}
		req, _ := http.NewRequest("GET", url+"/v1/episodes/"+sid+"/trajectory", nil)
		req.Header.Set("Authorization", "Bearer test-token")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		traj, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || strings.Count(string(traj), "\n") != 2 || strings.Count(string(traj), `"tool":"`+stepTool+`"`) != 2 {
			t.Errorf("the resumed session's episode: %d\n%s", resp.StatusCode, traj)
		}
	})
}

// jsonEqual compares two JSON texts as values.
func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
