package serve

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/internal/worldtest"
)

// clocked is the test world with a world clock at 09:30 (a header's
// `now`) and a second task, a copy of settle_acme on a clock of its own.
type clocked struct{ runtime.World }

func (c clocked) Info() runtime.WorldInfo {
	i := c.World.Info()
	i.Now = runtime.Clock{Today: i.Today}.Now() + 9*3600 + 30*60
	return i
}

func (c clocked) Tasks() []runtime.TaskInfo {
	ts := c.World.Tasks()
	own := ts[0]
	own.ID = "settle_acme_later"
	now, _ := runtime.ParseDateTime("2026-03-16T17:45:00Z")
	own.Now = &now
	return append(ts, own)
}

func (c clocked) NewEpisode(task string) (runtime.Episode, error) {
	if task == "settle_acme_later" {
		task = "settle_acme"
	}
	return c.World.NewEpisode(task)
}

// TestClockOfTasks: a task without a clock of its own is told the world's
// date and time of day, one with its own clock that one, as "today" and
// "now" and in the policy (a policy without the template's date line
// starts with the clock), on the JSON API, the OpenEnv reset and MCP.
func TestClockOfTasks(t *testing.T) {
	s, err := New([]runtime.World{clocked{worldtest.World}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	defer func() { ts.Close(); s.Close() }()
	url := ts.URL
	cases := []struct{ task, today, now, sentence string }{
		{"settle_acme", "2026-03-14", "2026-03-14T09:30:00Z", "Today is Saturday, 2026-03-14; the time is 09:30 UTC (2026-03-14T09:30:00Z)."},
		{"settle_acme_later", "2026-03-16", "2026-03-16T17:45:00Z", "Today is Monday, 2026-03-16; the time is 17:45 UTC (2026-03-16T17:45:00Z)."},
		{"", "2026-03-14", "2026-03-14T09:30:00Z", "Today is Saturday, 2026-03-14; the time is 09:30 UTC (2026-03-14T09:30:00Z)."},
	}
	var tasks []TaskSummary
	do(t, "GET", url+"/v1/worlds/worldtest/tasks", "", &tasks)
	if len(tasks) != 2 {
		t.Fatalf("%d tasks", len(tasks))
	}
	ctx := context.Background()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http")+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	ws.SetReadLimit(1 << 20)
	for i, c := range cases {
		if i < len(tasks) && (tasks[i].ID != c.task || tasks[i].Today.String() != c.today || tasks[i].Now.String() != c.now) {
			t.Errorf("GET tasks: %s %s %s, want %s %s %s", tasks[i].ID, tasks[i].Today, tasks[i].Now, c.task, c.today, c.now)
		}
		var start EpisodeStart
		if st := do(t, "POST", url+"/v1/worlds/worldtest/episodes", `{"task":"`+c.task+`"}`, &start); st != 201 {
			t.Fatalf("open %q: %d", c.task, st)
		}
		if start.Today.String() != c.today || start.Now.String() != c.now || !strings.HasPrefix(start.Policy, c.sentence+"\n\n# Worldtest policy") {
			t.Errorf("start of %q: %s %s, policy %q", c.task, start.Today, start.Now, start.Policy)
		}
		ws.Write(ctx, websocket.MessageText, []byte(`{"type":"reset","data":{"task_id":"`+c.task+`"}}`))
		_, data, err := ws.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var reset struct {
			Data struct {
				Observation struct{ Today, Now, Policy string }
			}
		}
		json.Unmarshal(data, &reset)
		if o := reset.Data.Observation; o.Today != c.today || o.Now != c.now || o.Policy != start.Policy {
			t.Errorf("OpenEnv reset of %q: %+v", c.task, o)
		}
		client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url + "/mcp/worldtest?task=" + c.task}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := sess.InitializeResult().Instructions; got != start.Policy {
			t.Errorf("MCP instructions of %q: %q", c.task, got)
		}
		sess.Close()
	}
}
