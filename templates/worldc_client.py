"""A client for the JSON episode API of a worldc bundle's server.

Standard library only (urllib, json). Start the server with
`bin/<bundle> serve --addr 127.0.0.1:8080 --control-token "$WORLDC_CONTROL_TOKEN"`
(or with --control-addr, and give the client that address), then:

    from worldc_client import Client

    client = Client("http://127.0.0.1:8080")   # the token from $WORLDC_CONTROL_TOKEN
    print(client.worlds())
    with client.episode("my_world", "my_task") as ep:
        print(ep.instruction, ep.today, ep.now)    # the task's date and time
        obs = ep.call("get_customer", id="acme")   # {"ok": True, "data": {...}}
        grade = ep.grade()                          # {"reward": 1.0, "assertions": [...], ...}
        # a task that grades the agent's final message (ep.needs_answer):
        grade = ep.grade(answer="The outstanding balance is 1,234.50 EUR.")

A failed tool call is an observation ({"ok": False, "error": {...}}), as
the agent sees it; errors of the API itself (unknown world, task or
episode, a full server, a missing control token) raise WorldcError with
the server's code.

Opening, grading, reading and deleting episodes are the server's control
plane: the client sends `Authorization: Bearer TOKEN`, with the token given
to Client or else taken from $WORLDC_CONTROL_TOKEN. Keep the token (and the
control address) away from the agent: with them it could grade itself.
"""

import json
import os
import urllib.error
import urllib.parse
import urllib.request

__all__ = ["Client", "Episode", "WorldcError"]


class WorldcError(Exception):
    """An error of the episode API: HTTP status, stable code and message."""

    def __init__(self, status, code, message):
        super().__init__("%s (%s): %s" % (code, status, message))
        self.status = status
        self.code = code
        self.message = message


class Client:
    """The JSON episode API of one server."""

    def __init__(self, url, timeout=60.0, token=None):
        self.url = url.rstrip("/")
        self.timeout = timeout
        self.token = token if token is not None else os.environ.get("WORLDC_CONTROL_TOKEN", "")

    def _request(self, method, path, body=None, raw=False):
        data = None
        headers = {"Accept": "application/json"}
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                payload = resp.read()
        except urllib.error.HTTPError as err:
            payload = err.read()
            try:
                e = json.loads(payload)["error"]
                raise WorldcError(err.code, e.get("code", ""), e.get("message", "")) from None
            except (ValueError, KeyError, TypeError):
                raise WorldcError(err.code, "http_error", payload.decode("utf-8", "replace")) from None
        if raw:
            return payload.decode("utf-8")
        return json.loads(payload)

    def worlds(self):
        """The worlds of the server: name, title, industry, ..., tools, tasks."""
        return self._request("GET", "/v1/worlds")

    def tasks(self, world):
        """The tasks of a world, without their solutions."""
        return self._request("GET", "/v1/worlds/%s/tasks" % urllib.parse.quote(world, safe=""))

    def episode(self, world, task="", lite=False):
        """Open an episode of a task (task "" is the world seed, with no rubric).

        lite: the server leaves the policy and the tool list out of its
        answer (a trainer that has them already saves ~15 KB per episode).
        """
        body = {"task": task}
        if lite:
            body["lite"] = True
        start = self._request("POST", "/v1/worlds/%s/episodes" % urllib.parse.quote(world, safe=""), body)
        return Episode(self, start)


class Episode:
    """One open episode. Use it as a context manager to close it."""

    def __init__(self, client, start):
        self._client = client
        self.id = start["episode_id"]
        self.world = start["world"]
        self.task = start["task"]
        self.persona = start.get("persona", "")
        self.instruction = start.get("instruction", "")
        # The date and time the task runs on, its own clock or else the
        # world's: today "2026-05-22", now "2026-05-22T09:00:00Z" (RFC 3339,
        # UTC). The policy says it too ("Today is Friday, 2026-05-22; ...").
        self.today = start.get("today", "")
        self.now = start.get("now", "")
        self.policy = start.get("policy", "")
        self.tools = start.get("tools", [])
        # The task grades the agent's final message: pass it to grade().
        self.needs_answer = bool(start.get("answer", False))

    def _path(self, suffix=""):
        return "/v1/episodes/%s%s" % (urllib.parse.quote(self.id, safe=""), suffix)

    def call(self, tool, **arguments):
        """Call a tool; returns the observation the agent sees."""
        return self.call_with(tool, arguments)

    def call_with(self, tool, arguments):
        """Call a tool with its arguments as a dict (any names)."""
        return self._client._request("POST", self._path("/calls"), {"tool": tool, "arguments": arguments})

    def state(self):
        """The state as JSON, its hash and the number of calls made."""
        return self._client._request("GET", self._path("/state"))

    def grade(self, answer=None):
        """Grade the current state: reward, assertions, invariant violations.

        answer: the agent's final message (a str), for tasks that grade it
        (needs_answer); None grades without one, and the task's answer
        assertions fail.
        """
        if answer is None:
            return self._client._request("POST", self._path("/grade"))
        if not isinstance(answer, str):
            raise TypeError("answer must be a str (the agent's final message), not %s" % type(answer).__name__)
        return self._client._request("POST", self._path("/grade"), {"answer": answer})

    def trajectory(self):
        """The calls made so far, as a list of steps (tool, args, observation)."""
        text = self._client._request("GET", self._path("/trajectory"), raw=True)
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    def close(self):
        """Close the episode (idempotent)."""
        try:
            self._client._request("DELETE", self._path())
        except WorldcError as err:
            if err.code != "unknown_episode":
                raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
