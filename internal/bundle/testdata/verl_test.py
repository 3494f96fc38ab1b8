"""The bundle's verl files, loaded the way verl loads them, against a served
bundle: the tool configs through OmegaConf and verl's tool registry
(verl/tools/utils/tool_registry.py: initialize_tools_from_config), their
schemas against verl's pydantic models (verl/tools/schemas.py), the dataset
rows as RLHFDataset and ToolAgentLoop read them, and every golden
trajectory of the bundle run through the tool class as ToolAgentLoop calls
it (create, execute with the trajectory's AgentData, release, per call),
scored by the reward function; every verl and NeMo Gym row gives its
task's date and time (today, now), which its system message says. verl
itself (torch, ray, vllm) is not installed: the parts of it this follows
are quoted from volcengine/verl at
b178a3cd56f58b2d502255daba591e92833930a7 (Apache-2.0).

usage: /usr/bin/python3 verl_test.py BUNDLE_DIR SERVER_URL   (token in $WORLDC_CONTROL_TOKEN)
"""

import asyncio
import gc
import importlib.util
import json
import os
import sys
import time
import types
import urllib.request
from enum import Enum

try:
    from omegaconf import OmegaConf
except ImportError:
    sys.exit("FAIL: omegaconf is not installed for %s: apt-get install -y python3-omegaconf" % sys.executable)

bundle, url = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(bundle, "client"))


class AgentState(Enum):  # verl/experimental/agent_loop/tool_agent_loop.py
    PENDING = "pending"
    GENERATING = "generating"
    PROCESSING_TOOLS = "processing_tools"
    TERMINATED = "terminated"
    INTERACTING = "interacting"


class FunctionCall:  # verl/experimental/agent_loop/tool_parser.py
    def __init__(self, name, arguments):
        self.name, self.arguments = name, arguments


class ScriptedParser:
    """verl's ToolParser contract: extract_tool_calls(response_ids) ->
    (content without the calls, [FunctionCall]). The scripted model's
    "token ids" are its turn: {"content": text, "calls": [{name, arguments}]}."""

    async def extract_tool_calls(self, response_ids):
        return response_ids.get("content", ""), [FunctionCall(c["name"], json.dumps(c["arguments"])) for c in response_ids.get("calls", [])]


class AgentLoopOutput:
    def __init__(self, extra_fields):
        self.extra_fields = extra_fields


class ToolAgentLoop:
    """verl's ToolAgentLoop (verl/experimental/agent_loop/tool_agent_loop.py),
    reduced to what a subclass sees: run's state machine over an AgentData,
    _handle_generating_state (the model's turn in agent_data.response_ids;
    TERMINATED on a turn without tool calls or at max_assistant_turns),
    _handle_processing_tools_state (each call through _call_tool: create,
    execute with the AgentData, release; its reward in tool_rewards),
    self.tools by name, self.tool_parser, and output.extra_fields with
    turn_scores and tool_rewards. The model is a script of turns."""

    def __init__(self, tools, script, max_assistant_turns=None):
        self.tools = tools
        self.tool_parser = ScriptedParser()
        self.script = list(script)
        self.max_assistant_turns = max_assistant_turns

    async def run(self, sampling_params, **kwargs):
        agent_data = AgentData("run", kwargs.get("tools_kwargs", {}))
        state = AgentState.PENDING
        while state != AgentState.TERMINATED:
            if state == AgentState.PENDING:
                state = AgentState.GENERATING
            elif state == AgentState.GENERATING:
                state = await self._handle_generating_state(agent_data, sampling_params)
            elif state == AgentState.PROCESSING_TOOLS:
                state = await self._handle_processing_tools_state(agent_data)
        output = AgentLoopOutput(extra_fields={})
        output.extra_fields.update({"turn_scores": agent_data.turn_scores, "tool_rewards": agent_data.tool_rewards})
        return output

    async def _handle_generating_state(self, agent_data, sampling_params, ignore_termination=False):
        agent_data.assistant_turns += 1
        agent_data.response_ids = self.script.pop(0)
        if self.max_assistant_turns and agent_data.assistant_turns >= self.max_assistant_turns:
            return AgentState.TERMINATED
        _, agent_data.tool_calls = await self.tool_parser.extract_tool_calls(agent_data.response_ids)
        return AgentState.PROCESSING_TOOLS if agent_data.tool_calls else AgentState.TERMINATED

    async def _handle_processing_tools_state(self, agent_data):
        for tc in agent_data.tool_calls:
            _, reward, _ = await call_tool(self.tools, agent_data.tools_kwargs, tc.name, json.loads(tc.arguments), agent_data)
            if reward is not None:
                agent_data.tool_rewards.append(reward)
        return AgentState.GENERATING


# verl's agent loop module, for worldc_verl to subclass (verl itself is not
# installed); verl.tools stays missing, so worldc_verl's BaseTool and
# ToolResponse are its own.
_verl = types.ModuleType("verl")
_verl_loop = types.ModuleType("verl.experimental.agent_loop.tool_agent_loop")
_verl_loop.AgentState, _verl_loop.ToolAgentLoop = AgentState, ToolAgentLoop
sys.modules.update({"verl": _verl, "verl.experimental": types.ModuleType("verl.experimental"),
                    "verl.experimental.agent_loop": types.ModuleType("verl.experimental.agent_loop"),
                    "verl.experimental.agent_loop.tool_agent_loop": _verl_loop})


class ToolType(Enum):  # verl/tools/utils/tool_registry.py
    NATIVE = "native"
    MCP = "mcp"


def get_tool_class(cls_name):  # verl/tools/utils/tool_registry.py
    module_name, class_name = cls_name.rsplit(".", 1)
    if module_name not in sys.modules:
        spec = importlib.util.find_spec(module_name)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
    else:
        module = sys.modules[module_name]
    return getattr(module, class_name)


def check_schema(d, where):
    """verl's OpenAIFunctionToolSchema (pydantic, verl/tools/schemas.py):
    type: str; function: {name: str, description: str, parameters:
    {type: str, properties: {name: {type: str, description: str|None,
    enum: list[str]|None}}, required: list[str]}, strict: bool}."""

    def need(cond, what):
        if not cond:
            raise AssertionError("%s: verl's schema refuses it: %s in %s" % (where, what, json.dumps(d)[:300]))

    need(isinstance(d.get("type"), str), "type is not a string")
    fn = d.get("function")
    need(isinstance(fn, dict), "no function")
    need(isinstance(fn.get("name"), str) and isinstance(fn.get("description"), str), "function name/description")
    params = fn.get("parameters", {"type": "object", "properties": {}, "required": []})
    need(isinstance(params.get("type"), str), "parameters.type")
    need(isinstance(params.get("properties"), dict), "parameters.properties")
    need(isinstance(params.get("required"), list) and all(isinstance(r, str) for r in params["required"]), "parameters.required")
    for name, prop in params["properties"].items():
        need(isinstance(prop, dict) and isinstance(prop.get("type"), str), "property %s: type %r" % (name, prop.get("type")))
        need(prop.get("description") is None or isinstance(prop["description"], str), "property %s: description" % name)
        enum = prop.get("enum")
        need(enum is None or (isinstance(enum, list) and all(isinstance(v, str) for v in enum)), "property %s: enum %r" % (name, enum))
    for r in params["required"]:
        need(r in params["properties"], "required %s is no property" % r)
    need(isinstance(fn.get("strict", False), bool), "strict")


def initialize_tools_from_config(path):
    """verl's initialize_tools_from_config, native tools."""
    tools_config = OmegaConf.load(path)
    tools = []
    for tool_config in tools_config.tools:
        cls_name = tool_config.class_name
        tool_type = ToolType(tool_config.config.type)
        assert tool_type == ToolType.NATIVE, tool_type
        # verl's MCP path reads config.rate_limit: it must be there.
        assert tool_config.config.rate_limit > 0
        tool_cls = get_tool_class(cls_name)
        tool_schema = OmegaConf.to_container(tool_config.tool_schema, resolve=True)
        check_schema(tool_schema, "%s %s" % (path, tool_schema.get("function", {}).get("name")))
        tools.append(tool_cls(config=OmegaConf.to_container(tool_config.config, resolve=True), tool_schema=tool_schema))
    return tools


class AgentData:
    """What ToolAgentLoop's AgentData gives a tool (verl/experimental/
    agent_loop/tool_agent_loop.py): the request id and extra_fields, "for
    dynamic addition, e.g., tool session data"."""

    def __init__(self, request_id, tools_kwargs=None):
        self.request_id = request_id
        self.tools_kwargs = tools_kwargs or {}
        self.extra_fields = {}
        self.response_ids = []
        self.tool_rewards = []
        self.turn_scores = []
        self.assistant_turns = 0
        self.tool_calls = []


def open_episodes():
    with urllib.request.urlopen(url + "/healthz", timeout=10) as resp:
        return json.loads(resp.read())["episodes"]


def wait_episodes(n, what):
    deadline = time.time() + 5
    while open_episodes() != n and time.time() < deadline:
        time.sleep(0.02)
    assert open_episodes() == n, "%s: %d episodes open, want %d" % (what, open_episodes(), n)


def clock_sentence(today, now):
    """What the agent of a task on that clock is told, written out here
    from the date and time (not read from the bundle's code)."""
    import datetime
    weekday = datetime.date.fromisoformat(today).strftime("%A")
    hms = now[11:19]
    return "Today is %s, %s; the time is %s UTC (%s)." % (weekday, today, hms[:5] if hms.endswith(":00") else hms, now)


def check_clocks(world):
    """Every verl and NeMo Gym row of the world gives its task's clock
    (tasks.jsonl's today and now: the task's own, else the world's) as
    today and now, and its system (developer) message says it in place of
    the world's date. Returns how many tasks run on a clock of their own."""
    info = [w for w in json.loads(urllib.request.urlopen(url + "/v1/worlds", timeout=10).read()) if w["name"] == world][0]
    tasks = {}
    for line in open(os.path.join(bundle, "worlds", world, "tasks.jsonl")):
        t = json.loads(line)
        tasks[t["task_id"]] = t
    own = 0
    for t in tasks.values():
        if t["today"] != info["today"] or t["now"] != info["now"]:
            own += 1
        else:
            assert t["now"].startswith(t["today"] + "T"), t
    for line in open(os.path.join(bundle, "trainers", "verl", world + ".jsonl")):
        row = json.loads(line)
        ei = row["extra_info"]
        t = tasks[ei["task_id"]]
        assert (ei["today"], ei["now"]) == (t["today"], t["now"]), (world, ei["task_id"], ei["today"], ei["now"])
        system = row["prompt"][0]["content"]
        assert clock_sentence(t["today"], t["now"]) in system, "%s %s: the verl system prompt does not say %r" % (world, ei["task_id"], clock_sentence(t["today"], t["now"]))
        assert "Today's date: " + info["today"] not in system, (world, ei["task_id"])
    for line in open(os.path.join(bundle, "trainers", "nemo_gym", world + ".jsonl")):
        row = json.loads(line)
        t = tasks[row["task_id"]]
        assert (row["today"], row["now"]) == (t["today"], t["now"]), (world, row["task_id"], row["today"], row["now"])
        dev = row["responses_create_params"]["input"][0]
        assert dev["role"] == "developer" and clock_sentence(t["today"], t["now"]) in dev["content"], "%s %s: the NeMo Gym developer message does not say the clock" % (world, row["task_id"])
        assert "Today's date: " + info["today"] not in dev["content"], (world, row["task_id"])
    return own


def same_json(a, b):
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


async def call_tool(tools, tools_kwargs, name, args, agent_data):
    """ToolAgentLoop._call_tool: an instance per call."""
    tool = tools[name]
    kwargs = tools_kwargs.get(name, {})
    instance_id, _ = await tool.create(create_kwargs=kwargs.get("create_kwargs", {}))
    try:
        return await tool.execute(instance_id, args, agent_data=agent_data)
    finally:
        await tool.release(instance_id)


def agent_loop_class():
    """The agent loop of answer rows, as verl's registry finds it: the
    bundle's trainers/verl/agent_loop.yaml (agent_loop_config_path), its
    _target_ imported as hydra.utils.instantiate would."""
    for entry in OmegaConf.load(os.path.join(bundle, "trainers", "verl", "agent_loop.yaml")):
        if entry.name == "worldc_tool_agent":
            return get_tool_class(entry._target_)
    raise AssertionError("agent_loop.yaml registers no worldc_tool_agent")


async def answer_trajectories(world, tools, row, sol, compute_score):
    """A golden trajectory of a task that grades its final message, through
    WorldcToolAgentLoop: the golden calls, then the golden answer (the
    golden reward), a wrong answer (less), a last turn that still calls
    (no final message: the grade without one), and verl's own tool_agent
    (no worldc_reward: the grade without one)."""
    assert row["agent_name"] == "worldc_tool_agent", row["agent_name"]
    loop_cls = agent_loop_class()
    base = open_episodes()
    calls = [{"calls": [{"name": st["tool"], "arguments": st["args"]}]} for st in sol["steps"]]
    ei = row["extra_info"]

    async def score(script, loop=loop_cls, **kw):
        out = await loop(tools, script, **kw).run({}, tools_kwargs=ei["tools_kwargs"], extra_info=ei)
        gc.collect()
        wait_episodes(base, "after the answered trajectory of %s %s" % (world, sol["task_id"]))
        # verl's reward loop: extra_info updated with the output's extra_fields.
        extra = dict(ei, **out.extra_fields)
        return compute_score(row["data_source"], "", row["reward_model"]["ground_truth"], extra_info=extra), out

    right, out = await score(calls + [{"content": "Here is what I found: " + sol["answer"]}])
    assert right == sol["reward"] == 1.0, "%s %s: the golden answer scores %r, golden reward %r" % (world, sol["task_id"], right, sol["reward"])
    assert out.extra_fields.get("worldc_reward") == right
    wrong, _ = await score(calls + [{"content": "I could not find anything; it is 0 and 1999-01-01."}])
    assert wrong < right, "%s %s: a wrong answer scores %r" % (world, sol["task_id"], wrong)
    # The bundle's answer tasks change nothing: without an answer, their
    # grade is the start state's.
    none = round(ei["worldc_initial_reward"], 9)  # compute_score rounds its sum
    still, out = await score(calls + [{"content": "One more look.", "calls": calls[0]["calls"]}], max_assistant_turns=len(calls) + 1)
    assert "worldc_reward" not in out.extra_fields and still == none < right, (still, none, out.extra_fields)
    stock, out = await score(calls + [{"content": sol["answer"]}], loop=ToolAgentLoop)
    assert stock == none, "verl's tool_agent on an answer row: %r, want the grade without an answer %r" % (stock, none)
    # No call at all: the episode of the row's task is opened to grade the
    # answer (the bundle's answer tasks change nothing: the same grade).
    direct, _ = await score([{"content": sol["answer"]}])
    assert direct == right, (direct, right)


async def main():
    verl = get_tool_class("worldc_verl.compute_score").__module__
    compute_score = get_tool_class("worldc_verl.compute_score")
    manifest = json.load(open(os.path.join(bundle, "manifest.json")))
    base = open_episodes()
    trajectories = steps = answered = clocked = 0
    for w in manifest["worlds"]:
        world = w["name"]
        clocked += check_clocks(world)
        tools = {t.name: t for t in initialize_tools_from_config(os.path.join(bundle, "trainers", "verl", world + ".tool_config.yaml"))}
        assert len(tools) == w["tools"], (world, len(tools), w["tools"])
        rows = {}
        for line in open(os.path.join(bundle, "trainers", "verl", world + ".jsonl")):
            row = json.loads(line)
            # RLHFDataset: prompt, data_source, reward_model.ground_truth,
            # extra_info.index, tools_kwargs (need_tools_kwargs).
            assert row["prompt"][0]["role"] == "system" and row["prompt"][1]["role"] == "user", row["prompt"]
            assert row["agent_name"] == ("worldc_tool_agent" if row["extra_info"]["worldc_answer"] else "tool_agent") and row["data_source"] == "worldc/" + world
            ei = row["extra_info"]
            assert ei["need_tools_kwargs"] is True and isinstance(ei["index"], int)
            assert set(ei["tools_kwargs"]) == set(tools), "tools_kwargs keys %s, tools %s" % (sorted(ei["tools_kwargs"]), sorted(tools))
            rows[row["reward_model"]["ground_truth"]] = row
        for line in open(os.path.join(bundle, "worlds", world, "solutions.jsonl")):
            sol = json.loads(line)
            row = rows[sol["task_id"]]
            if row["extra_info"]["worldc_answer"]:
                await answer_trajectories(world, tools, row, sol, compute_score)
                answered += 1
                trajectories += 1
                continue
            agent_data = AgentData("traj-%d" % trajectories)
            rewards = []
            for i, step in enumerate(sol["steps"]):
                resp, reward, metrics = await call_tool(tools, row["extra_info"]["tools_kwargs"], step["tool"], step["args"], agent_data)
                obs = json.loads(resp.text)
                assert same_json(obs, step["observation"]), "%s %s step %d %s: %s, golden %s" % (world, sol["task_id"], i + 1, step["tool"], resp.text, json.dumps(step["observation"]))
                rewards.append(reward)
                steps += 1
            # One trajectory, one episode, open until the trajectory ends.
            assert open_episodes() == base + 1, "%s %s: %d episodes open during one trajectory" % (world, sol["task_id"], open_episodes() - base)
            score = compute_score(row["data_source"], "", row["reward_model"]["ground_truth"], extra_info=dict(row["extra_info"], tool_rewards=rewards, num_turns=len(rewards)))
            assert score == sol["reward"], "%s %s: compute_score %r, golden reward %r (steps %r)" % (world, sol["task_id"], score, sol["reward"], rewards)
            del agent_data
            gc.collect()
            wait_episodes(base, "after the trajectory of %s %s" % (world, sol["task_id"]))
            trajectories += 1

        # Calls of one turn run at once (asyncio.gather): still one
        # episode, each call in turn.
        sol = json.loads(open(os.path.join(bundle, "worlds", world, "solutions.jsonl")).readline())
        row = rows[sol["task_id"]]
        agent_data = AgentData("parallel")
        first = sol["steps"][0]
        outs = await asyncio.gather(*[call_tool(tools, row["extra_info"]["tools_kwargs"], first["tool"], first["args"], agent_data) for _ in range(4)])
        assert open_episodes() == base + 1, "parallel calls: %d episodes" % (open_episodes() - base)
        assert all(json.loads(o[0].text)["ok"] in (True, False) for o in outs)
        del agent_data, outs
        gc.collect()
        wait_episodes(base, "after the parallel trajectory")

        # Rollouts that give create the trajectory's id, then calc_reward
        # and release every tool at the end.
        names = list(tools)[:2]
        ck = row["extra_info"]["tools_kwargs"][names[0]]["create_kwargs"]
        for n in names:
            iid, _ = await tools[n].create("req-1", **ck)
            assert iid == "req-1"
        start = await tools[names[0]].calc_reward("req-1")
        assert start == row["extra_info"]["worldc_initial_reward"], (start, row["extra_info"]["worldc_initial_reward"])
        assert open_episodes() == base + 1
        await tools[names[0]].release("req-1")
        assert open_episodes() == base + 1, "released by one tool of two: the episode must stay"
        await tools[names[1]].release("req-1")
        wait_episodes(base, "after every tool released the instance")
    # No tool call at all: the start state's reward.
    assert compute_score("worldc/x", "", "t", extra_info={"worldc_initial_reward": 0.25}) == 0.25
    assert answered > 0, "no task of the bundle grades an answer"
    assert clocked > 0, "no task of the bundle runs on a clock of its own"
    print("ok verl: %d worlds, %d golden trajectories (%d graded with their answer), %d calls, %d tasks on their own clock (%s)" % (len(manifest["worlds"]), trajectories, answered, steps, clocked, verl))


asyncio.run(main())
