/**
 * Starts the node-sdk peer in its own Node process (never in the bench's process, where it would
 * share an event loop with the load generator) and waits for it to report its port.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";

export interface NodePeer {
  url: URL;
  pid: number | undefined;
  dispose(): Promise<void>;
}

const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 5_000;

function waitForPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("node-sdk peer did not start within 60 s")), START_TIMEOUT_MS);
    const lines = createInterface({ input: child.stdout! });
    lines.on("line", (line) => {
      try {
        const { port } = JSON.parse(line) as { port?: unknown };
        if (typeof port === "number") {
          clearTimeout(timer);
          lines.close();
          resolve(port);
        }
      } catch {
        // Not our status line; the peer prints nothing else on stdout.
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`node-sdk peer exited with code ${code} before listening`));
    });
  });
}

export async function startNodePeer(cwd: string, env: Record<string, string>): Promise<NodePeer> {
  const child = spawn(process.execPath, ["--import", "tsx", "bench/peers/node-sdk.ts"], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const port = await waitForPort(child);
  return {
    url: new URL(`http://127.0.0.1:${port}/`),
    pid: child.pid,
    async dispose() {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.stdin?.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}
