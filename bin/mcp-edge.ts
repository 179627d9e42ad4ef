/**
 * The mcp-edge command line: `npx mcp-edge <command> …`. Each command lives in bin/commands/ and
 * is loaded only when asked for, so `tools list` does not pay for the bridge or the chat client.
 */
const COMMANDS: Record<string, { usage: string; load: () => Promise<(argv: string[]) => Promise<number>> }> = {
  tools: {
    usage: "mcp-edge tools list|call …        tools of the MCP server at MCP_URL",
    load: async () => (await import("./commands/tools")).runTools,
  },
  bridge: {
    usage:
      "mcp-edge bridge --port P --token T (--plugins DIR | --manifest plugin.json | -- <command> …)   stdio servers as streamable HTTP",
    load: async () => (await import("./commands/bridge")).runBridge,
  },
  chat: {
    usage: 'mcp-edge chat [--url URL] [--token T] [-m "…"]   chat with the agent, using the tools at MCP_URL',
    load: async () => (await import("./commands/chat")).runChat,
  },
};

function usage(): string {
  return ["usage:", ...Object.values(COMMANDS).map((command) => `  ${command.usage}`)].join("\n");
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const command = name === undefined ? undefined : COMMANDS[name];
  if (!command) {
    console.error(name === undefined || name === "help" || name === "--help" ? usage() : `unknown command "${name}"\n${usage()}`);
    return name === "help" || name === "--help" ? 0 : 2;
  }
  return (await command.load())(rest);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
