"""verl tools and reward for the worlds of a worldc bundle.

Standard library only (the HTTP goes through worldc_client, beside this
file). verl loads it from trainers/verl/<world>.tool_config.yaml, whose
entries name the class `worldc_verl.WorldcTool`: put the bundle's client/
directory on PYTHONPATH, and point verl at the files:

    export PYTHONPATH=$BUNDLE/client:$PYTHONPATH
    export WORLDC_CONTROL_TOKEN=...            # the server's --control-token
    python3 -m verl.trainer.main_ppo \\
        actor_rollout_ref.rollout.multi_turn.enable=true \\
        actor_rollout_ref.rollout.multi_turn.tool_config_path=$BUNDLE/trainers/verl/WORLD.tool_config.yaml \\
        data.train_files=WORLD.parquet \\
        custom_reward_function.path=$BUNDLE/client/worldc_verl.py \\
        custom_reward_function.name=compute_score ...

One trajectory is one episode. verl's ToolAgentLoop creates, executes and
releases a tool instance for every call and passes its AgentData to
execute: the first call of a trajectory opens an episode of the task its
row names (create_kwargs: world, task_id) and keeps it in
agent_data.extra_fields; every later call of the trajectory, to any of the
world's tools, runs in it, one at a time, in the order the model made them;
the episode is closed when the trajectory's AgentData goes away. Without
AgentData (rollouts that give create an instance id of their own and call
calc_reward and release at the end), the instance is the trajectory.

A task that grades the agent's final message (`answer` in its rubric; its
rows say extra_info.worldc_answer and agent_name "worldc_tool_agent") needs
the agent loop WorldcToolAgentLoop, verl's ToolAgentLoop that grades the
trajectory's episode with the last assistant message (its text without
tool calls) when the trajectory ends, and hands compute_score that grade
(extra_info.worldc_reward). Register it with the bundle's
trainers/verl/agent_loop.yaml:

    actor_rollout_ref.rollout.agent.agent_loop_config_path=$BUNDLE/trainers/verl/agent_loop.yaml

Without it (verl's tool_agent on such a row), compute_score is the grade
without an answer: the answer assertions fail.

Each call returns its step reward: the change of the episode's grade that
the call made. The reward of the task's start state (the dataset row's
extra_info.worldc_initial_reward) plus the step rewards is the grade of the
episode's last state, which is what compute_score returns from the
tool_rewards verl hands it.

The server is config.server_url ($WORLDC_SERVER_URL overrides it); the
control token is read from the environment variable config.control_token_env
(default WORLDC_CONTROL_TOKEN). Give the trainer the control address when
the server has one: opening, grading and closing episodes are the control
plane.
"""

import asyncio
import json
import os
import threading
import uuid
import weakref

from worldc_client import Client, WorldcError

try:  # inside verl
    from verl.tools.base_tool import BaseTool
    from verl.tools.schemas import ToolResponse
except ImportError:  # outside verl: the same attributes, no dependency

    class BaseTool:
        def __init__(self, config, tool_schema):
            self.config = config
            self.tool_schema = tool_schema
            fn = tool_schema["function"] if isinstance(tool_schema, dict) else tool_schema.function
            self.name = fn["name"] if isinstance(fn, dict) else fn.name

    class ToolResponse:
        def __init__(self, text=None, image=None, video=None):
            self.text, self.image, self.video = text, image, video


try:  # inside verl
    from verl.experimental.agent_loop.tool_agent_loop import AgentState, ToolAgentLoop
except ImportError:  # outside verl: WorldcToolAgentLoop cannot run
    AgentState = ToolAgentLoop = None


__all__ = ["WorldcTool", "WorldcToolAgentLoop", "compute_score"]

_EXTRA_KEY = "worldc_episode"


class _Trajectory:
    """The episode of one trajectory: opened on the first call, closed when
    the trajectory ends. Its lock runs the trajectory's calls one at a time,
    in the order they were made."""

    def __init__(self, client, world, task):
        self.client = client
        self.world = world
        self.task = task
        self.episode = None  # worldc_client.Episode, once opened
        self.reward = 0.0  # the grade of the state before the next call
        self.lock = asyncio.Lock()
        self.closed = False
        self.users = 0  # instance ids sharing it (rollouts without AgentData)

    def open(self):
        ep = self.client.episode(self.world, self.task, lite=True)
        self.episode = ep
        # The start state's grade (the row's worldc_initial_reward): the
        # first call's step reward is its change from there.
        self.reward = float(ep.grade().get("reward", 0.0))
        return ep

    def close(self):
        if self.closed:
            return
        self.closed = True
        if self.episode is not None:
            try:
                self.episode.close()
            except (WorldcError, OSError):
                pass  # the server reaps idle episodes anyway


def _close_later(traj):
    # Called when an AgentData is collected, maybe inside the event loop:
    # the HTTP request goes to a thread.
    threading.Thread(target=traj.close, daemon=True).start()


# Rollouts without AgentData: the trajectory of an instance id.
_by_instance = {}
_instances_lock = threading.Lock()
# Requests in flight to each server, bounded by config.rate_limit.
_limits = {}


def _limit(url, n):
    with _instances_lock:
        sem = _limits.get(url)
        if sem is None:
            sem = _limits[url] = threading.BoundedSemaphore(max(1, int(n)))
        return sem


class WorldcTool(BaseTool):
    """One tool of a worldc world, as a verl native tool."""

    def __init__(self, config, tool_schema):
        super().__init__(config, tool_schema)
        self.world = config.get("world", "")
        url = os.environ.get("WORLDC_SERVER_URL") or config.get("server_url") or "http://127.0.0.1:8080"
        token = os.environ.get(config.get("control_token_env") or "WORLDC_CONTROL_TOKEN", "")
        self.client = Client(url, timeout=float(config.get("timeout", 60)), token=token)
        self._sem = _limit(self.client.url, config.get("rate_limit", 64))
        self._instances = {}  # instance id -> (world, task)

    async def _run(self, fn, *args):
        def call():
            with self._sem:
                return fn(*args)

        return await asyncio.get_running_loop().run_in_executor(None, call)

    async def create(self, instance_id=None, **kwargs):
        # ToolAgentLoop: create(create_kwargs={...}), a new instance per
        # call, the trajectory in execute's agent_data. Rollouts that give
        # the trajectory's id and the row's create_kwargs as keywords,
        # create(request_id, world=..., task_id=...), share the instance
        # among the tools until each releases it.
        ck = kwargs.get("create_kwargs")
        if ck is None:
            ck = kwargs
        world = ck.get("world") or self.world
        task = ck.get("task_id", ck.get("task", ""))
        shared = instance_id is not None
        if not shared:
            instance_id = uuid.uuid4().hex
        self._instances[instance_id] = (world, task)
        if shared:
            with _instances_lock:
                traj = _by_instance.get(instance_id)
                if traj is None:
                    traj = _by_instance[instance_id] = _Trajectory(self.client, world, task)
                traj.users += 1
        return instance_id, ToolResponse()

    def _trajectory(self, instance_id, agent_data):
        world, task = self._instances.get(instance_id) or (self.world, "")
        if agent_data is not None:
            return _agent_trajectory(self.client, world, task, agent_data)
        with _instances_lock:
            traj = _by_instance.get(instance_id)
            if traj is None:  # an instance of its own, closed at release
                traj = _by_instance[instance_id] = _Trajectory(self.client, world, task)
                traj.users = 1
            return traj

    async def execute(self, instance_id, parameters, **kwargs):
        traj = self._trajectory(instance_id, kwargs.get("agent_data"))
        async with traj.lock:
            if traj.episode is None:
                await self._run(traj.open)
            obs = await self._run(traj.episode.call_with, self.name, parameters or {})
            grade = await self._run(traj.episode.grade)
            reward = float(grade.get("reward", 0.0))
            step, traj.reward = reward - traj.reward, reward
        text = json.dumps(obs, ensure_ascii=False, separators=(",", ":"))
        return ToolResponse(text=text), step, {"ok": bool(obs.get("ok"))}

    async def calc_reward(self, instance_id, **kwargs):
        """The grade of the trajectory's episode now (its task's start state
        when no call was made)."""
        traj = self._trajectory(instance_id, kwargs.get("agent_data"))
        async with traj.lock:
            if traj.episode is None:
                await self._run(traj.open)
            grade = await self._run(traj.episode.grade)
        return float(grade.get("reward", 0.0))

    async def release(self, instance_id, **kwargs):
        self._instances.pop(instance_id, None)
        with _instances_lock:
            traj = _by_instance.get(instance_id)
            if traj is None:
                return  # the trajectory (AgentData) outlives the call
            traj.users -= 1
            if traj.users > 0:
                return
            del _by_instance[instance_id]
        await self._run(traj.close)


def _agent_trajectory(client, world, task, agent_data):
    """The episode of the trajectory whose AgentData this is, closed when
    the AgentData goes away."""
    traj = agent_data.extra_fields.get(_EXTRA_KEY)
    if traj is None:
        traj = _Trajectory(client, world, task)
        agent_data.extra_fields[_EXTRA_KEY] = traj
        weakref.finalize(agent_data, _close_later, traj)
    return traj


async def grade_final_message(tools, agent_data, text):
    """The reward of the trajectory's episode graded with the agent's final
    message text (the episode of the row's task opened if no call was
    made); None when the world's tools are not among tools or the server
    refuses the answer (longer than it takes)."""
    tool = next((t for t in tools.values() if isinstance(t, WorldcTool)), None)
    if tool is None:
        return None
    ck = {}
    for kw in (agent_data.tools_kwargs or {}).values():
        ck = kw.get("create_kwargs") or {}
        break
    traj = _agent_trajectory(tool.client, ck.get("world") or tool.world, ck.get("task_id", ck.get("task", "")), agent_data)
    async with traj.lock:
        if traj.episode is None:
            await tool._run(traj.open)
        try:
            grade = await tool._run(traj.episode.grade, text)
        except WorldcError as err:
            if err.code != "invalid_answer":
                raise
            return None
    return float(grade.get("reward", 0.0))


if ToolAgentLoop is not None:

    class WorldcToolAgentLoop(ToolAgentLoop):
        """verl's ToolAgentLoop for tasks that grade the agent's final
        message: when the trajectory ends on an assistant turn without a
        tool call, its text is the answer the episode is graded with, and
        the grade is compute_score's (output.extra_fields.worldc_reward,
        which reaches compute_score's extra_info). A trajectory that ends
        otherwise (a turn or length limit on a call) has no final message:
        compute_score grades it without one."""

        async def run(self, sampling_params, **kwargs):
            self._worldc_reward = None
            output = await super().run(sampling_params, **kwargs)
            if self._worldc_reward is not None:
                output.extra_fields["worldc_reward"] = self._worldc_reward
            return output

        async def _handle_generating_state(self, agent_data, sampling_params, ignore_termination=False):
            state = await super()._handle_generating_state(agent_data, sampling_params, ignore_termination=ignore_termination)
            if state == AgentState.TERMINATED:
                text, calls = await self.tool_parser.extract_tool_calls(agent_data.response_ids)
                if not calls:
                    self._worldc_reward = await grade_final_message(self.tools, agent_data, text)
            return state

else:

    class WorldcToolAgentLoop:
        """Needs verl (verl.experimental.agent_loop.tool_agent_loop)."""

        def __init__(self, *args, **kwargs):
            raise ImportError("WorldcToolAgentLoop subclasses verl's ToolAgentLoop: install verl")


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    """verl's custom reward function: the grade of the trajectory's last
    state, from the start state's reward and the tools' step rewards; for
    a task that grades the final message, the grade WorldcToolAgentLoop
    gave the episode with it (extra_info.worldc_reward)."""
    extra_info = extra_info or {}
    if extra_info.get("worldc_reward") is not None:
        return float(extra_info["worldc_reward"])
    reward = float(extra_info.get("worldc_initial_reward") or 0.0)
    for r in extra_info.get("tool_rewards") or []:
        reward += float(r)
    # The step rewards are differences of fractions: round off the float
    # error of their sum.
    return min(1.0, max(0.0, round(reward, 9)))
