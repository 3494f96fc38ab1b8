package serve

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/serve/eval"
)

// The verl files of a bundle, as verl (volcengine/verl) loads them:
//
//   - trainers/verl/<w>.tool_config.yaml: one entry per tool, a native
//     tool (config.type "native") of the class worldc_verl.WorldcTool
//     (client/worldc_verl.py), with a tool_schema that verl's
//     OpenAIFunctionToolSchema accepts (each parameter a single "type",
//     enums of strings, the required ones listed) and a config that names
//     the server (config.server_url, $WORLDC_SERVER_URL overrides it) and
//     the environment variable of the control token, never the token;
//   - trainers/verl/<w>.jsonl: the dataset rows of RLHFDataset (prompt,
//     data_source, reward_model.ground_truth = the task id, agent_name
//     "tool_agent", and extra_info with tools_kwargs keyed by each tool's
//     name, whose create_kwargs name the world and task, and the reward of
//     the task's start state that worldc_verl.compute_score starts from);
//     a task that grades the agent's final message has agent_name
//     "worldc_tool_agent" and extra_info.worldc_answer true;
//   - trainers/verl/agent_loop.yaml: verl's agent loop registry entry of
//     worldc_tool_agent (actor_rollout_ref.rollout.agent.agent_loop_config_path),
//     the class worldc_verl.WorldcToolAgentLoop: verl's ToolAgentLoop
//     that, when the trajectory ends, grades its episode with the final
//     assistant message (its text without tool calls) and hands
//     compute_score that grade (extra_info.worldc_reward).
//
// verl's ToolAgentLoop creates, executes and releases a tool instance per
// call; the tool class keeps one episode per trajectory (in the loop's
// AgentData) and returns each call's change of the episode's reward as
// its step reward, so that the start state's reward plus the step rewards
// is the grade of the episode's last state.

// VerlToolClass is the class verl's tool config names: the module
// client/worldc_verl.py, which must be importable (PYTHONPATH).
const VerlToolClass = "worldc_verl.WorldcTool"

// VerlAgentLoop is the agent loop of the rows of tasks that grade an
// answer: its name in the rows and its class.
const (
	VerlAgentLoop      = "worldc_tool_agent"
	VerlAgentLoopClass = "worldc_verl.WorldcToolAgentLoop"
)

// verlAgentLoopConfig is trainers/verl/agent_loop.yaml: the entry of
// verl's agent loop registry (a list of {name, _target_}).
func verlAgentLoopConfig() ([]byte, error) {
	return marshalIndent([]map[string]string{{"name": VerlAgentLoop, "_target_": VerlAgentLoopClass}})
}

// verlRow is a row of a verl multi-turn dataset; policy is the one the
// task's agent is shown (with its clock, which extra_info also gives as
// today and now).
func verlRow(info runtime.WorldInfo, policy string, clock eval.Clock, t runtime.TaskInfo, index int, tools []runtime.ToolInfo, initialReward float64) any {
	kwargs := map[string]any{}
	create := map[string]string{"world": info.Name, "task_id": t.ID}
	for _, tool := range tools {
		kwargs[tool.Name] = map[string]any{"create_kwargs": create}
	}
	agent := "tool_agent"
	if t.Answer {
		agent = VerlAgentLoop // grades the final assistant message
	}
	return map[string]any{
		"data_source": "worldc/" + info.Name,
		"agent_name":  agent,
		"prompt": []map[string]string{
			{"role": "system", "content": policy},
			{"role": "user", "content": t.Instruction},
		},
		"ability":      "tool_use",
		"reward_model": map[string]string{"style": "rule", "ground_truth": t.ID},
		"extra_info": map[string]any{
			"index":                 index,
			"world":                 info.Name,
			"task_id":               t.ID,
			"today":                 clock.Today,
			"now":                   clock.Now,
			"need_tools_kwargs":     true,
			"tools_kwargs":          kwargs,
			"worldc_initial_reward": initialReward,
			"worldc_answer":         t.Answer,
		},
	}
}

// verlToolConfig is the tool configuration of a world for verl.
func verlToolConfig(info runtime.WorldInfo, tools []runtime.ToolInfo, serverURL string) ([]byte, error) {
	var entries []any
	for _, t := range tools {
		schema, err := verlSchema(t)
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		entries = append(entries, map[string]any{
			"class_name": VerlToolClass,
			"config": map[string]any{
				"type":              "native",
				"world":             info.Name,
				"server_url":        strings.TrimRight(serverURL, "/"),
				"control_token_env": ControlTokenEnv,
				"timeout":           60,
				// Requests in flight to the server from one process, at most
				// (verl's MCP tools read config.rate_limit too).
				"rate_limit": 64,
			},
			"tool_schema": schema,
		})
	}
	// JSON is YAML; OmegaConf reads it as verl does (OmegaConf.load).
	return marshalIndent(map[string]any{"tools": nonNil(entries)})
}

// verlProperty is a parameter as verl's OpenAIFunctionPropertySchema
// holds it: one type, a description, an enum of strings.
type verlProperty struct {
	Type        string   `json:"type"`
	Description string   `json:"description,omitempty"`
	Enum        []string `json:"enum,omitempty"`
}

// verlSchema is a tool's schema in the shape verl's pydantic models take
// (verl/tools/schemas.py): a nullable parameter ({"type":[T,"null"]}, how
// strict mode writes an optional one) is a parameter of type T that is not
// required; null leaves the enum; what the models drop (an array's items,
// a format) is said in the description. The decoders take a missing
// optional parameter as null.
func verlSchema(t runtime.ToolInfo) (any, error) {
	var fn struct {
		Function struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			Parameters  struct {
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			} `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal(t.OpenAI(), &fn); err != nil {
		return nil, err
	}
	props := map[string]verlProperty{}
	required := []string{}
	names := make([]string, 0, len(fn.Function.Parameters.Properties))
	for n := range fn.Function.Parameters.Properties {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		var p struct {
			Type        json.RawMessage `json:"type"`
			Description string          `json:"description"`
			Enum        []any           `json:"enum"`
			Format      string          `json:"format"`
			Items       json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(fn.Function.Parameters.Properties[n], &p); err != nil {
			return nil, fmt.Errorf("parameter %s: %w", n, err)
		}
		var typ string
		nullable := false
		if json.Unmarshal(p.Type, &typ) != nil {
			var types []string
			if err := json.Unmarshal(p.Type, &types); err != nil {
				return nil, fmt.Errorf("parameter %s: type %s", n, p.Type)
			}
			for _, ty := range types {
				if ty == "null" {
					nullable = true
				} else if typ == "" {
					typ = ty
				}
			}
		}
		if typ == "" {
			typ = "string"
		}
		vp := verlProperty{Type: typ, Description: p.Description}
		for _, v := range p.Enum {
			switch v := v.(type) {
			case string:
				vp.Enum = append(vp.Enum, v)
			case nil:
			default:
				vp.Description = strings.TrimSpace(vp.Description + fmt.Sprintf(" One of %v.", p.Enum))
				vp.Enum = nil
			}
		}
		if len(p.Items) > 0 {
			vp.Description = strings.TrimSpace(vp.Description + " A JSON array; each item: " + string(p.Items) + ".")
		}
		if p.Format != "" && !strings.Contains(vp.Description, "YYYY") {
			vp.Description = strings.TrimSpace(vp.Description + " Format: " + p.Format + ".")
		}
		if nullable {
			vp.Description = strings.TrimSpace(vp.Description + " Optional.")
		} else if slices.Contains(fn.Function.Parameters.Required, n) {
			required = append(required, n)
		}
		props[n] = vp
	}
	return map[string]any{
		"type": "function",
		"function": map[string]any{
			"name":        fn.Function.Name,
			"description": fn.Function.Description,
			"parameters":  map[string]any{"type": "object", "properties": props, "required": required},
		},
	}, nil
}
