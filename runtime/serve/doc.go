// Package serve runs compiled worlds as an episode server, for trainers and
// agents: a bundle's binary is a generated main that passes its worlds to
// [Main].
//
// One episode is one private state of one task of one world, a
// copy-on-write clone of the world's compiled seed. Calls within an
// episode are serialised; episodes never see each other's writes; the
// grader is never an agent tool. The same episodes are reachable over
// three protocols, thin adapters over one core ([Server]):
//
//   - a JSON episode API (/v1/...): create an episode, call tools, read the
//     state and its hash, grade, close, download the trajectory;
//   - MCP, with the official Go SDK: streamable HTTP where a new session
//     opens an episode (/mcp/{world}?task=…), a per-episode endpoint for
//     clients that open a session per call (/v1/episodes/{id}/mcp), and
//     stdio for a single episode;
//   - an OpenEnv-compatible WebSocket (/ws) with reset, step (call_tool,
//     list_tools), state and close messages.
//
// Two planes (control.go): agents reach tools only; creating, deleting,
// grading and reading episodes is the trainer's control plane, behind
// Options.ControlToken and optionally on a listener of its own
// (ControlHandler, AgentHandler). NeMo Gym's resources-server endpoints
// are served by NemoGymHandler; the verl and NeMo Gym files of a bundle
// come from Export (trainers.go).
//
// With Options.StateDir episodes are durable (durable.go): their openings
// and accepted calls are journaled before the answers go out and rebuilt
// by replay when a server starts; Drain, EndStreams and Close stop a
// server without cutting a call in flight (shutdown.go).
//
// Errors carry stable codes (see the Code constants); capacity is bounded
// (Options.MaxEpisodes: 429 / CAPACITY_REACHED beyond it; LimitListener
// for connections), slow and idle clients are cut off (limits.go); idle
// episodes are reaped; a panic in a tool is recovered and reported as the
// tool's error, with the episode intact.
//
// The package lives in a module of its own (it needs the MCP SDK and a
// WebSocket library) so that worlds that are not served never depend on
// them.
package serve
