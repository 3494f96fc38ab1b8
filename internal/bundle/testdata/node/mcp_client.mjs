// The official MCP TypeScript SDK against a worldc bundle's server:
// connect over streamable HTTP to /mcp/{world}?task=…, list the tools, call
// one, and print what came back as one JSON line for the Go test to check.
//
// usage: node mcp_client.mjs URL TOOL ARGUMENTS_JSON
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, tool, args] = process.argv.slice(2);
const client = new Client({ name: "worldc-test", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const { tools } = await client.listTools();
const result = await client.callTool({ name: tool, arguments: JSON.parse(args) });
console.log(JSON.stringify({
  tools: tools.map((t) => t.name),
  schema: tools.find((t) => t.name === tool)?.inputSchema ?? null,
  isError: result.isError ?? false,
  text: result.content[0].text,
}));
await client.close();
