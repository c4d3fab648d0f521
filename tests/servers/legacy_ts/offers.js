// Test-only MCP server on the official TypeScript SDK (2025 handshake era, like server.js)
// that offers resources, resource templates, prompts and log messages besides tools.
//
// Why it exists: the gateway passes a server's resources, prompts and logging through to
// its hosts; this server has all three, changes its sets on request and sends
// `notifications/resources/list_changed` and `notifications/prompts/list_changed` the 2025
// way, and honours `logging/setLevel` (the SDK drops messages below the level asked for).
//
// Resources: memo://notes/<name> (text/plain), first "first" and "second"; one template,
//   memo://notes/{name}; reading any other URI is refused with -32002 "Resource not found".
// Prompts: greet(name) -> one user message "Hello, <name>!"; a missing name is refused.
// Tools:
//   add_note(name, text) -> adds memo://notes/<name>, sends resources/list_changed
//   add_prompt(name)     -> adds a prompt <name> (no arguments), sends prompts/list_changed
//   log(level, text, ignore_level) -> sends notifications/message (logger "offers") at that
//                          level; with ignore_level true even below the level asked for (a
//                          server that does not honour logging/setLevel)
//   touch_note(name, text) -> sets the text of memo://notes/<name>, sends
//                          notifications/resources/updated for it when it is subscribed to
//   subscriptions()      -> JSON {"subscribed": [uris], "subscribes": n, "unsubscribes": n}:
//                          what the client holds now, and how often it asked
//
// With `--subscribe` it declares resources.subscribe and serves resources/subscribe and
// resources/unsubscribe; without, a subscription is not offered (the SDK refuses it).
//
// Run: `node tests/servers/legacy_ts/offers.js [--subscribe]` after `npm ci` in this folder.

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ErrorCode,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

const STRING = { type: "string" };

const TOOLS = [
  {
    name: "add_note",
    description: "Add the resource memo://notes/<name> and notify resources/list_changed.",
    inputSchema: { type: "object", properties: { name: STRING, text: STRING }, required: ["name", "text"] },
  },
  {
    name: "add_prompt",
    description: "Add a prompt without arguments and notify prompts/list_changed.",
    inputSchema: { type: "object", properties: { name: STRING }, required: ["name"] },
  },
  {
    name: "log",
    description: "Send a log message at the given level.",
    inputSchema: {
      type: "object",
      properties: { level: STRING, text: STRING, ignore_level: { type: "boolean" } },
      required: ["level", "text"],
    },
  },
  {
    name: "touch_note",
    description: "Set the text of memo://notes/<name>; notify resources/updated when subscribed.",
    inputSchema: { type: "object", properties: { name: STRING, text: STRING }, required: ["name", "text"] },
  },
  {
    name: "subscriptions",
    description: "The resources subscribed to now, and how often subscribe and unsubscribe came.",
    inputSchema: { type: "object", properties: {} },
  },
];

const SUBSCRIBE = process.argv.includes("--subscribe");
const subscribed = new Set();
let subscribes = 0;
let unsubscribes = 0;

const notes = new Map([
  ["first", "the first note"],
  ["second", "the second note"],
]);
const extraPrompts = [];

const server = new Server(
  { name: "offers-ts", version: "1.0.0" },
  {
    capabilities: {
      tools: {},
      resources: { listChanged: true, ...(SUBSCRIBE ? { subscribe: true } : {}) },
      prompts: { listChanged: true },
      logging: {},
    },
  },
);

function text(value) {
  return { content: [{ type: "text", text: String(value) }] };
}

server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));

server.setRequestHandler(ListResourcesRequestSchema, async () => ({
  resources: [...notes.keys()].map((name) => ({
    uri: `memo://notes/${name}`,
    name,
    mimeType: "text/plain",
  })),
}));

server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
  resourceTemplates: [{ uriTemplate: "memo://notes/{name}", name: "note", mimeType: "text/plain" }],
}));

server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
  const { uri } = request.params;
  const prefix = "memo://notes/";
  const name = uri.startsWith(prefix) ? uri.slice(prefix.length) : null;
  if (name === null || !notes.has(name)) {
    throw new McpError(-32002, "Resource not found", { uri });
  }
  return { contents: [{ uri, mimeType: "text/plain", text: notes.get(name) }] };
});

if (SUBSCRIBE) {
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    subscribes += 1;
    subscribed.add(request.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    unsubscribes += 1;
    subscribed.delete(request.params.uri);
    return {};
  });
}

server.setRequestHandler(ListPromptsRequestSchema, async () => ({
  prompts: [
    {
      name: "greet",
      description: "Greet someone.",
      arguments: [{ name: "name", description: "Whom to greet.", required: true }],
    },
    ...extraPrompts.map((name) => ({ name, description: `The prompt ${name}.` })),
  ],
}));

server.setRequestHandler(GetPromptRequestSchema, async (request) => {
  const { name, arguments: args = {} } = request.params;
  if (name === "greet") {
    if (!args.name) throw new McpError(ErrorCode.InvalidParams, "greet needs the argument name");
    return {
      description: "A greeting.",
      messages: [{ role: "user", content: { type: "text", text: `Hello, ${args.name}!` } }],
    };
  }
  if (extraPrompts.includes(name)) {
    return { messages: [{ role: "user", content: { type: "text", text: `prompt ${name}` } }] };
  }
  throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
});

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { name, arguments: args = {} } = request.params;
  switch (name) {
    case "add_note":
      notes.set(String(args.name), String(args.text));
      await server.sendResourceListChanged();
      return text("added");
    case "add_prompt":
      extraPrompts.push(String(args.name));
      await server.sendPromptListChanged();
      return text("added");
    case "log":
      if (args.ignore_level) {
        await server.notification({
          method: "notifications/message",
          params: { level: args.level, logger: "offers", data: args.text },
        });
      } else {
        await server.sendLoggingMessage({ level: args.level, logger: "offers", data: args.text });
      }
      return text("logged");
    case "touch_note": {
      const uri = `memo://notes/${args.name}`;
      notes.set(String(args.name), String(args.text));
      if (subscribed.has(uri)) await server.sendResourceUpdated({ uri });
      return text("touched");
    }
    case "subscriptions":
      return text(JSON.stringify({ subscribed: [...subscribed].sort(), subscribes, unsubscribes }));
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
