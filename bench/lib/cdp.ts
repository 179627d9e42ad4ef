/**
 * A minimal Chrome DevTools Protocol client over workerd's inspector WebSocket: just enough to
 * take a V8 CPU profile of one Worker while the bench sends it requests.
 */

export interface CallFrame {
  functionName: string;
  url: string;
  /** 0-based. */
  lineNumber: number;
  columnNumber: number;
}

export interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  /** Microseconds between consecutive samples. */
  timeDeltas?: number[];
}

const COMMAND_TIMEOUT_MS = 60_000;

export class CdpSession {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (result: unknown) => void; reject: (error: Error) => void }>();

  private constructor(private readonly socket: WebSocket) {
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: { message: string } };
      if (message.id === undefined) return; // an event; none is subscribed to
      const waiter = this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id);
      if (message.error) waiter.reject(new Error(message.error.message));
      else waiter.resolve(message.result);
    });
  }

  static connect(url: string): Promise<CdpSession> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url);
      socket.addEventListener("open", () => resolve(new CdpSession(socket)), { once: true });
      socket.addEventListener("error", () => reject(new Error(`cannot connect to the inspector at ${url}`)), { once: true });
    });
  }

  send(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method}: no answer from the inspector`));
      }, COMMAND_TIMEOUT_MS);
      this.pending.set(id, {
        resolve: (result) => {
          clearTimeout(timer);
          resolve(result);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.socket.send(JSON.stringify({ id, method, params }));
    });
  }

  close(): void {
    this.socket.close();
  }
}

/** Samples `workload` with V8's sampling profiler at `intervalUs`. */
export async function profileWhile(inspectorWsUrl: string, intervalUs: number, workload: () => Promise<void>): Promise<CpuProfile> {
  const session = await CdpSession.connect(inspectorWsUrl);
  try {
    await session.send("Profiler.enable");
    await session.send("Profiler.setSamplingInterval", { interval: intervalUs });
    await session.send("Profiler.start");
    await workload();
    const { profile } = (await session.send("Profiler.stop")) as { profile: CpuProfile };
    return profile;
  } finally {
    session.close();
  }
}
