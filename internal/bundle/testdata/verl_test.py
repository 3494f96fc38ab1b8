"""The bundle's verl files, loaded the way verl loads them, against a served
bundle: the tool configs through OmegaConf and verl's tool registry
(verl/tools/utils/tool_registry.py: initialize_tools_from_config), their
schemas against verl's pydantic models (verl/tools/schemas.py), the dataset
rows as RLHFDataset and ToolAgentLoop read them, and every golden
trajectory of the bundle run through the tool class as ToolAgentLoop calls
it (create, execute with the trajectory's AgentData, release, per call),
scored by the reward function. verl itself (torch, ray, vllm) is not
installed: the parts of it this follows are quoted from volcengine/verl at
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
import urllib.request
from enum import Enum

try:
    from omegaconf import OmegaConf
except ImportError:
    sys.exit("FAIL: omegaconf is not installed for %s: apt-get install -y python3-omegaconf" % sys.executable)

bundle, url = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(bundle, "client"))


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

    def __init__(self, request_id):
        self.request_id = request_id
        self.extra_fields = {}


def open_episodes():
    with urllib.request.urlopen(url + "/healthz", timeout=10) as resp:
        return json.loads(resp.read())["episodes"]


def wait_episodes(n, what):
    deadline = time.time() + 5
    while open_episodes() != n and time.time() < deadline:
        time.sleep(0.02)
    assert open_episodes() == n, "%s: %d episodes open, want %d" % (what, open_episodes(), n)


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


async def main():
    verl = get_tool_class("worldc_verl.compute_score").__module__
    compute_score = get_tool_class("worldc_verl.compute_score")
    manifest = json.load(open(os.path.join(bundle, "manifest.json")))
    base = open_episodes()
    trajectories = steps = 0
    for w in manifest["worlds"]:
        world = w["name"]
        tools = {t.name: t for t in initialize_tools_from_config(os.path.join(bundle, "trainers", "verl", world + ".tool_config.yaml"))}
        assert len(tools) == w["tools"], (world, len(tools), w["tools"])
        rows = {}
        for line in open(os.path.join(bundle, "trainers", "verl", world + ".jsonl")):
            row = json.loads(line)
            # RLHFDataset: prompt, data_source, reward_model.ground_truth,
            # extra_info.index, tools_kwargs (need_tools_kwargs).
            assert row["prompt"][0]["role"] == "system" and row["prompt"][1]["role"] == "user", row["prompt"]
            assert row["agent_name"] == "tool_agent" and row["data_source"] == "worldc/" + world
            ei = row["extra_info"]
            assert ei["need_tools_kwargs"] is True and isinstance(ei["index"], int)
            assert set(ei["tools_kwargs"]) == set(tools), "tools_kwargs keys %s, tools %s" % (sorted(ei["tools_kwargs"]), sorted(tools))
            rows[row["reward_model"]["ground_truth"]] = row
        for line in open(os.path.join(bundle, "worlds", world, "solutions.jsonl")):
            sol = json.loads(line)
            row = rows[sol["task_id"]]
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
    print("ok verl: %d worlds, %d golden trajectories, %d calls (%s)" % (len(manifest["worlds"]), trajectories, steps, verl))


asyncio.run(main())
