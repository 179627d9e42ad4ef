// @ts-check
// Chat with the agent (POST /api/chat, streamed as server-sent events): each tool call appears
// as it happens — name, arguments, then result and duration — followed by the reply. The
// conversation is kept by the Worker (GET /api/chat) and forgotten with DELETE /api/chat.
import { api, authorizedFetch, errorFrom, notifyUnauthorized } from "./api.js";
import { errorView } from "./step-up.js";
import { clear, errorBox, formatMs, formatTime, h, jsonBlock } from "./dom.js";
import { readSse } from "./sse.js";

const MAX_MESSAGE = 4000;

/** @typedef {{ name: string, arguments?: unknown, is_error?: boolean, duration_ms?: number, result?: string }} ChatToolCall */
/** @typedef {{ role: string, at: string, text: string, tool_calls?: ChatToolCall[] }} ChatMessage */
/** @typedef {{ model?: string, warnings?: string[] }} ChatDone */

/** @param {HTMLElement} panel */
export function renderChatPanel(panel) {
  const log = h("ol", { class: "chat-log", role: "log", "aria-live": "polite", "aria-label": "Conversation" });
  const status = h("div", { class: "chat-status", "aria-live": "polite" });
  const input = h("textarea", {
    id: "chat-input",
    name: "message",
    rows: "2",
    maxlength: String(MAX_MESSAGE),
    required: true,
    placeholder: "e.g. add a task to call mom tomorrow",
    "aria-describedby": "chat-help",
  });
  const send = h("button", { type: "submit", class: "primary" }, "Send");
  const clearButton = h("button", { type: "button" }, "Clear conversation");
  const form = h(
    "form",
    { class: "chat-form", "aria-label": "Message the agent" },
    h("label", { for: "chat-input", class: "field-label" }, "Message"),
    input,
    h("p", { class: "help", id: "chat-help" }, "Enter sends, Shift+Enter adds a line. The agent uses the gateway's tools as you."),
    h("div", { class: "actions" }, send, clearButton),
  );
  clear(panel, h("div", { class: "panel-head" }, h("h2", {}, "Chat with the agent")), log, status, form);

  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });

  clearButton.addEventListener("click", async () => {
    clearButton.disabled = true;
    try {
      await api("/api/chat", { method: "DELETE" });
      clear(log);
      clear(status, h("p", { class: "muted" }, "Conversation cleared."));
    } catch (error) {
      clear(status, errorView(error, "Could not clear the conversation"));
    } finally {
      clearButton.disabled = false;
    }
  });

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const message = input.value.trim();
    if (message === "") {
      clear(status, errorBox("Type a message first.", "Nothing to send"));
      input.focus();
      return;
    }
    send.disabled = true;
    input.value = "";
    log.append(messageItem({ role: "user", text: message, at: new Date().toISOString() }));
    clear(status, h("p", { class: "muted" }, "The agent is working…"));
    try {
      await streamChat(message, log, status);
    } catch (error) {
      clear(status, errorView(error, "The agent could not answer"));
    } finally {
      send.disabled = false;
      input.focus();
    }
  });

  loadHistory(log, status);
}

/**
 * @param {HTMLElement} log
 * @param {HTMLElement} status
 */
async function loadHistory(log, status) {
  try {
    /** @type {{ messages: ChatMessage[] }} */
    const { messages } = await api("/api/chat");
    clear(log, messages.map(messageItem));
    if (messages.length === 0) clear(status, h("p", { class: "muted" }, "No messages yet. Ask the agent to add, list or complete tasks."));
  } catch (error) {
    clear(status, errorView(error, "Could not load the conversation"));
  }
}

/**
 * @param {string} message
 * @param {HTMLElement} log
 * @param {HTMLElement} status
 */
async function streamChat(message, log, status) {
  let response;
  try {
    response = await authorizedFetch("/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      // The agent reads "tomorrow at 5pm" in the user's own zone.
      body: JSON.stringify({ message, ...(timeZone() ? { time_zone: timeZone() } : {}) }),
    });
  } catch (error) {
    throw new Error(`Could not reach the Worker (${/** @type {Error} */ (error).message})`);
  }
  if (!response.ok) {
    const error = await errorFrom(response);
    if (response.status === 401) notifyUnauthorized(error);
    throw error;
  }
  if (!(response.headers.get("content-type") ?? "").includes("text/event-stream")) {
    // A server that answered JSON anyway: show it whole.
    const done = await response.json();
    for (const call of done.tool_calls ?? []) log.append(toolCallItem(call, call));
    log.append(messageItem({ role: "assistant", text: done.reply, at: new Date().toISOString() }));
    clear(status, doneNote(done));
    return;
  }
  const calls = new Map();
  let replied = false;
  for await (const { event, data } of readSse(response)) {
    let payload;
    try {
      payload = JSON.parse(data);
    } catch {
      continue;
    }
    if (event === "tool_call") {
      const item = toolCallItem(payload);
      calls.set(payload.id, item);
      log.append(item);
    } else if (event === "tool_result") {
      const item = calls.get(payload.id);
      if (item) fillResult(item, payload);
      else log.append(toolCallItem(payload, payload));
    } else if (event === "reply") {
      replied = true;
      log.append(messageItem({ role: "assistant", text: payload.text, at: new Date().toISOString() }));
    } else if (event === "done") {
      if (!replied && payload.reply) log.append(messageItem({ role: "assistant", text: payload.reply, at: new Date().toISOString() }));
      clear(status, doneNote(payload));
      return;
    } else if (event === "error") {
      const error = payload.error ?? {};
      throw new Error(`${error.message ?? "unknown error"} (${error.code ?? "error"})`);
    }
  }
  clear(status, replied ? "" : errorBox("The stream ended before the agent finished.", "Interrupted"));
}

function timeZone() {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** @param {ChatDone} done */
function doneNote(done) {
  return h(
    "div",
    {},
    h("p", { class: "muted small" }, `Answered by ${done.model ?? "the agent"}.`),
    (done.warnings ?? []).map((warning) => h("p", { class: "warning" }, `Warning: ${warning}`)),
  );
}

/** @param {ChatMessage} message */
function messageItem(message) {
  return h(
    "li",
    { class: `message message-${message.role}` },
    h(
      "div",
      { class: "who" },
      message.role === "user" ? "You" : "Agent",
      h("time", { datetime: message.at, class: "muted small" }, ` ${formatTime(message.at)}`),
    ),
    h("div", { class: "text" }, message.text),
    (message.tool_calls ?? []).map((call) => toolCallItem(call, call, "div")),
  );
}

/**
 * A tool call card; `result` fills it at once (history), otherwise it waits for tool_result.
 * @param {ChatToolCall} call
 * @param {ChatToolCall} [result]
 * @param {"li" | "div"} [tag]
 */
function toolCallItem(call, result, tag = "li") {
  const item = h(
    tag,
    { class: "tool-call", "data-tool": call.name },
    h("div", { class: "who" }, "Tool call ", h("code", {}, call.name)),
    h("details", { class: "args" }, h("summary", {}, "Arguments"), jsonBlock(call.arguments ?? {})),
    h("div", { class: "outcome muted" }, "running…"),
  );
  if (result) fillResult(item, result);
  return item;
}

/**
 * @param {HTMLElement} item
 * @param {ChatToolCall} result
 */
function fillResult(item, result) {
  const outcome = /** @type {HTMLElement} */ (item.querySelector(".outcome"));
  outcome.className = result.is_error ? "outcome is-error" : "outcome";
  clear(
    outcome,
    h("div", { class: "small" }, result.is_error ? "failed" : "done", ` in ${formatMs(result.duration_ms)}`),
    h("pre", { class: "text", tabindex: "0" }, result.result ?? ""),
  );
}
