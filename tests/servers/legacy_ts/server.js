// Test-only MCP server on the official TypeScript SDK (pinned in package.json).
//
// Why it exists: it speaks ONLY the 2025 initialize-handshake era. It has no
// `server/discover` handler, so the SDK answers that request with JSON-RPC
// -32601 "Method not found", and it sends `notifications/tools/list_changed`
// the 2025 way (a plain notification on the session, no `subscriptions/listen`).
// agentty_tui's integration tests use it to prove that list_changed works with
// servers of the older era and that mode="auto" falls back quickly.
//
// Tools:
//   echo(text)  -> text
//   pid()       -> this process's PID (proves which process answered)
//   reveal()    -> adds the tool `revealed_tool` and sends tools/list_changed
//   hide()      -> removes `revealed_tool` and sends tools/list_changed
//   revealed_tool() (only while revealed) -> "revealed"
//
// Run: `node tests/servers/legacy_ts/server.js` after `npm ci` in this folder
// (node_modules is not committed). Writes only protocol to stdout.

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ErrorCode,
} from "@modelcontextprotocol/sdk/types.js";

const NO_ARGS = { type: "object", properties: {}, additionalProperties: false };

const BASE_TOOLS = [
  {
    name: "echo",
    description: "Return the given text unchanged.",
    inputSchema: {
      type: "object",
      properties: { text: { type: "string", description: "Text to echo back." } },
      required: ["text"],
      additionalProperties: false,
    },
  },
  { name: "pid", description: "Return the PID of this server process.", inputSchema: NO_ARGS },
  {
    name: "reveal",
    description: "Add the tool `revealed_tool` and notify tools/list_changed.",
    inputSchema: NO_ARGS,
  },
  {
    name: "hide",
    description: "Remove the tool `revealed_tool` and notify tools/list_changed.",
    inputSchema: NO_ARGS,
  },
];

const REVEALED_TOOL = {
  name: "revealed_tool",
  description: "A tool that exists only after reveal() was called.",
  inputSchema: NO_ARGS,
};

let revealed = false;

const server = new Server(
  { name: "legacy-ts", version: "1.0.0" },
  { capabilities: { tools: { listChanged: true } } },
);

function text(value) {
  return { content: [{ type: "text", text: String(value) }] };
}

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: revealed ? [...BASE_TOOLS, REVEALED_TOOL] : BASE_TOOLS,
}));

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { name, arguments: args = {} } = request.params;
  switch (name) {
    case "echo":
      return text(args.text ?? "");
    case "pid":
      return text(process.pid);
    case "reveal": {
      const changed = !revealed;
      revealed = true;
      if (changed) await server.sendToolListChanged();
      return text(changed ? "revealed" : "already revealed");
    }
    case "hide": {
      const changed = revealed;
      revealed = false;
      if (changed) await server.sendToolListChanged();
      return text(changed ? "hidden" : "already hidden");
    }
    case "revealed_tool":
      if (revealed) return text("revealed");
      break;
    default:
      break;
  }
  throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
});

const transport = new StdioServerTransport();
await server.connect(transport);
// Exit when the client closes stdin (the stdio transport alone keeps running).
process.stdin.on("end", () => process.exit(0));
process.stdin.on("close", () => process.exit(0));
