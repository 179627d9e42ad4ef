/**
 * A source object's MCP sessions with its upstream: the transport's connections to the server —
 * not an upstream connection, which is a user's sign-in at the upstream's authorization server
 * (workers/upstream-connections/). A singleton source keeps one warm connection in memory (dropped
 * after an error and re-made on the next call; after eviction the stored session is resumed), and
 * listens on it for notifications/tools/list_changed; a transient source connects per use and
 * closes. Every connection is opened with the config that arrives with the RPC and is never stored,
 * so a changed source takes effect at once (its fingerprint no longer matches the warm connection);
 * its session (protocol version, session id, fingerprint) is stored.
 */
import { AnswerLimits } from "../../mcp-client/answer-limit";
import { closeMcp, type FetchLike, type McpClientConnection, negotiated, type SessionInfo, sessionIdOf } from "../../mcp-client/connect";
import { McpClientError } from "../../mcp-client/errors";
import { openUpstream } from "../calls/upstream-connection";
import type { UpstreamConfig } from "../sources/upstream.types";
import type { SourceStorage, StoredSession } from "./source-storage";

/** The warm connection of a singleton source, and the config it serves now. */
export interface WarmConnection {
  connection: McpClientConnection;
  fingerprint: string;
  config: UpstreamConfig;
}

export interface UpstreamSessionsDeps {
  storage: SourceStorage;
  /** How the object reaches upstreams. */
  fetch: FetchLike;
  /** notifications/tools/list_changed arrived on this warm connection. */
  onToolsChanged: (connection: McpClientConnection) => void;
}

export class UpstreamSessions {
  private warmNow: WarmConnection | undefined;

  constructor(private readonly deps: UpstreamSessionsDeps) {}

  get warm(): WarmConnection | undefined {
    return this.warmNow;
  }

  async withConnection<T>(config: UpstreamConfig, use: (connection: McpClientConnection) => Promise<T>): Promise<T> {
    if (config.lifecycle === "transient") {
      await this.drop();
      const connection = await this.open(config, undefined);
      try {
        return await use(connection);
      } finally {
        await closeMcp(connection);
      }
    }
    const { connection, withSession } = await this.singleton(config);
    try {
      return await use(connection);
    } catch (error) {
      await this.drop();
      // A session the upstream no longer knows (it restarted) is answered 404 without running
      // anything (streamable HTTP spec): start a fresh session once, transparently.
      if (withSession && error instanceof McpClientError && error.httpStatus === 404) {
        this.deps.storage.forgetSession();
        return use((await this.singleton(config)).connection);
      }
      throw error;
    }
  }

  /** A connection of its own, closed after use, next to the warm one (which keeps serving calls). */
  async besideWarm<T>(config: UpstreamConfig, use: (connection: McpClientConnection) => Promise<T>): Promise<T> {
    const connection = await openUpstream(config, this.deps.fetch);
    try {
      return await use(connection);
    } finally {
      await closeMcp(connection);
    }
  }

  /** Closes the warm connection, if there is one. */
  async drop(): Promise<void> {
    const warm = this.warmNow;
    this.warmNow = undefined;
    if (warm) await closeMcp(warm.connection);
  }

  private async singleton(config: UpstreamConfig): Promise<{ connection: McpClientConnection; withSession: boolean }> {
    if (this.warmNow?.fingerprint === config.fingerprint) {
      this.warmNow.config = config;
      return { connection: this.warmNow.connection, withSession: sessionIdOf(this.warmNow.connection) !== null };
    }
    await this.drop();
    const stored = this.deps.storage.session();
    const resume = stored?.fingerprint === config.fingerprint && stored.sessionId ? stored : undefined;
    let connection: McpClientConnection | undefined;
    connection = await this.open(config, resume, () => {
      if (connection) this.deps.onToolsChanged(connection);
    });
    this.warmNow = { connection, fingerprint: config.fingerprint, config };
    return { connection, withSession: resume !== undefined || sessionIdOf(connection) !== null };
  }

  /**
   * Opens a connection whose calls (callTool's maxResultBytes) have their answers bounded while they
   * stream in; listings over it are not bounded here (they are discovery's to bound).
   */
  private async open(config: UpstreamConfig, resume: SessionInfo | undefined, onToolsChanged?: () => void): Promise<McpClientConnection> {
    const answerLimits = new AnswerLimits();
    const connection = { ...(await openUpstream(config, answerLimits.wrap(this.deps.fetch), { resume, onToolsChanged })), answerLimits };
    const now = negotiated(connection);
    const protocolVersion = now.protocolVersion ?? resume?.protocolVersion ?? null;
    const session: StoredSession = { protocolVersion, sessionId: now.sessionId, fingerprint: config.fingerprint };
    this.deps.storage.setSession(session);
    return connection;
  }
}
