// The official MCP TypeScript SDK against a worldc bundle's server: sessions
// beyond its capacity, and a session that resumes after the server restarts.
// Each command prints one JSON line for the Go test to check.
//
// usage: node mcp_lifecycle.mjs capacity URL N TOOL ARGUMENTS_JSON
//        node mcp_lifecycle.mjs open URL TOOL ARGUMENTS_JSON
//        node mcp_lifecycle.mjs resume URL SESSION_ID TOOL ARGUMENTS_JSON
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [cmd, url, ...rest] = process.argv.slice(2);

async function connect(sessionId) {
  const client = new Client({ name: "worldc-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), sessionId ? { sessionId } : undefined);
  await client.connect(transport);
  return { client, transport };
}

if (cmd === "capacity") {
  const [n, tool, args] = rest;
  const results = await Promise.allSettled(Array.from({ length: Number(n) }, () => connect()));
  const connected = results.filter((r) => r.status === "fulfilled").map((r) => r.value);
  let callsOK = 0;
  for (const { client } of connected) {
    const res = await client.callTool({ name: tool, arguments: JSON.parse(args) });
    if (!res.isError) callsOK++;
  }
  const refused = results.filter((r) => r.status === "rejected").map((r) => String(r.reason?.message ?? r.reason));
  console.log(JSON.stringify({ connected: connected.length, refused: refused.length, callsOK, reason: refused[0] ?? "" }));
  await Promise.all(connected.map(({ client }) => client.close()));
} else if (cmd === "open") {
  const [tool, args] = rest;
  const { client, transport } = await connect();
  const res = await client.callTool({ name: tool, arguments: JSON.parse(args) });
  console.log(JSON.stringify({ sessionId: transport.sessionId, isError: res.isError ?? false, text: res.content[0].text }));
  process.exit(0); // the session stays open on the server
} else if (cmd === "resume") {
  const [sessionId, tool, args] = rest;
  const { client, transport } = await connect(sessionId);
  const res = await client.callTool({ name: tool, arguments: JSON.parse(args) });
  console.log(JSON.stringify({ sessionId: transport.sessionId, isError: res.isError ?? false, text: res.content[0].text }));
  process.exit(0);
} else {
  console.error("unknown command " + cmd);
  process.exit(2);
}
