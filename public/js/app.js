// The console's shell: sign in with a token, then four panels (tools, sources, RAG health, chat)
// behind an accessible tab list.
import { api, ApiError, messageOf, onUnauthorized } from "./api.js";
import { renderChatPanel } from "./chat.js";
import { clear, errorBox, h } from "./dom.js";
import { renderRagPanel } from "./rag.js";
import { clearToken, getToken, setToken } from "./session.js";
import { renderSourcesPanel } from "./sources.js";
import { renderToolsPanel } from "./tools.js";

const main = document.getElementById("main");
const account = document.getElementById("account");

const PANELS = [
  { id: "tools", label: "Servers & tools", render: renderToolsPanel },
  { id: "sources", label: "Gateway sources", render: renderSourcesPanel },
  { id: "rag", label: "RAG health", render: renderRagPanel },
  { id: "chat", label: "Chat", render: renderChatPanel },
];

/** Checks a token against the API; the servers list is what the console needs next anyway. */
async function listServers(token) {
  return (await api("/api/servers", { token })).servers;
}

function signInView(message) {
  clear(account);
  const input = h("input", { id: "token", name: "token", type: "password", autocomplete: "off", required: true, spellcheck: "false", "aria-describedby": "token-help" });
  const status = h("div", { class: "signin-status", "aria-live": "assertive" }, message ? errorBox(message, "Signed out") : null);
  const submit = h("button", { type: "submit", class: "primary" }, "Sign in");
  const form = h("form", { class: "signin", "aria-labelledby": "signin-heading" },
    h("h2", { id: "signin-heading" }, "Sign in"),
    h("label", { for: "token", class: "field-label" }, "API token"),
    input,
    h("p", { class: "help", id: "token-help" },
      "Paste a bearer token. ", h("code", {}, "npm run dev"), " prints the demo user's; make others with ",
      h("code", {}, "npm run token -- create --user <name>"), ". It stays in this tab only (sessionStorage)."),
    h("div", { class: "actions" }, submit),
    status);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const token = input.value.trim();
    if (token === "") {
      clear(status, errorBox("Paste your API token first.", "Missing token"));
      input.focus();
      return;
    }
    submit.disabled = true;
    clear(status, h("p", { class: "muted" }, "Checking the token…"));
    try {
      const servers = await listServers(token);
      setToken(token);
      consoleView(servers);
    } catch (error) {
      const text = error instanceof ApiError && error.status === 401
        ? `The Worker refused this token: ${error.message}. Check it was copied whole and has not been revoked.`
        : messageOf(error);
      clear(status, errorBox(text, "Sign-in failed"));
      submit.disabled = false;
      input.focus();
    }
  });
  clear(main, form);
  input.focus();
}

function consoleView(servers) {
  const token = getToken();
  const signOut = h("button", { type: "button", id: "sign-out" }, "Sign out");
  signOut.addEventListener("click", () => {
    clearToken();
    signInView();
  });
  clear(account, h("span", { class: "muted small" }, `Signed in · token …${token.slice(-4)}`), " ", signOut);

  const tabs = PANELS.map((panel, index) => h("button", {
    type: "button", role: "tab", id: `tab-${panel.id}`, "aria-controls": `panel-${panel.id}`,
    "aria-selected": index === 0 ? "true" : "false", tabindex: index === 0 ? "0" : "-1",
  }, panel.label));
  const sections = PANELS.map((panel, index) => h("section", {
    role: "tabpanel", id: `panel-${panel.id}`, "aria-labelledby": `tab-${panel.id}`, tabindex: "0", hidden: index !== 0, class: "panel",
  }));
  const rendered = new Set();
  const show = (index, focus) => {
    tabs.forEach((tab, i) => {
      tab.setAttribute("aria-selected", String(i === index));
      tab.tabIndex = i === index ? 0 : -1;
      sections[i].hidden = i !== index;
    });
    if (focus) tabs[index].focus();
    // Sources, RAG health and chat are (re)loaded each time their tab opens: they change.
    const panel = PANELS[index];
    if (panel.id === "tools") {
      if (!rendered.has("tools")) panel.render(sections[index], servers);
    } else {
      panel.render(sections[index]);
    }
    rendered.add(panel.id);
    history.replaceState(null, "", `#${panel.id}`);
  };
  const tablist = h("div", { role: "tablist", "aria-label": "Console sections", class: "tabs" }, tabs);
  tabs.forEach((tab, index) => {
    tab.addEventListener("click", () => show(index, false));
    tab.addEventListener("keydown", (event) => {
      const moves = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: tabs.length - 1 };
      if (!(event.key in moves)) return;
      event.preventDefault();
      show((moves[event.key] + tabs.length) % tabs.length, true);
    });
  });
  clear(main, tablist, sections);
  const start = PANELS.findIndex((panel) => `#${panel.id}` === location.hash);
  show(start === -1 ? 0 : start, false);
}

onUnauthorized((error) => {
  clearToken();
  signInView(`The Worker no longer accepts your token (${error.message}). Sign in again.`);
});

async function start() {
  const token = getToken();
  if (!token) return signInView();
  try {
    consoleView(await listServers(token));
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 401)) signInView(messageOf(error));
  }
}

start();
