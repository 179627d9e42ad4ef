// @ts-check
// The console's shell: sign in through this Worker's OAuth sign-in page (oauth.js), then five
// panels (tools, sources, RAG health, chat, activity) behind an accessible tab list.
import { renderActivityPanel } from "./activity.js";
import { api, messageOf, onUnauthorized } from "./api.js";
import { renderChatPanel } from "./chat.js";
import { clear, errorBox, h } from "./dom.js";
import { beginSignIn, completeSignIn, grantedScopes, isSignInCallback, signOut } from "./oauth.js";
import { renderRagPanel } from "./rag.js";
import { clearTokens, getTokens } from "./session.js";
import { renderSourcesPanel } from "./sources.js";
import { renderToolsPanel } from "./tools.js";

// Both are in index.html: the page is built for this script.
const main = /** @type {HTMLElement} */ (document.getElementById("main"));
const account = /** @type {HTMLElement} */ (document.getElementById("account"));

/** @type {{ id: string, label: string, render: (panel: HTMLElement, servers: import("./tools.js").ServerInfo[]) => void }[]} */
const PANELS = [
  { id: "tools", label: "Servers & tools", render: renderToolsPanel },
  { id: "sources", label: "Gateway sources", render: renderSourcesPanel },
  { id: "rag", label: "RAG health", render: renderRagPanel },
  { id: "chat", label: "Chat", render: renderChatPanel },
  { id: "activity", label: "Activity", render: renderActivityPanel },
];

async function listServers() {
  return (await api("/api/servers")).servers;
}

/**
 * `notice`: { text, error } shown above the button (why the user is signed out, or what failed).
 * @param {{ text: string, error?: boolean }} [notice]
 */
function signInView(notice) {
  clear(account);
  const status = h(
    "div",
    { class: "signin-status", "aria-live": "assertive" },
    notice ? (notice.error ? errorBox(notice.text, "Signed out") : h("p", { class: "muted" }, notice.text)) : null,
  );
  const button = h("button", { type: "button", class: "primary", id: "sign-in" }, "Sign in");
  button.addEventListener("click", async () => {
    button.disabled = true;
    clear(status, h("p", { class: "muted" }, "Opening the sign-in page…"));
    try {
      await beginSignIn();
    } catch (error) {
      clear(status, errorBox(messageOf(error), "Sign-in failed"));
      button.disabled = false;
      button.focus();
    }
  });
  const panel = h(
    "section",
    { class: "signin", "aria-labelledby": "signin-heading" },
    h("h2", { id: "signin-heading" }, "Sign in"),
    h(
      "p",
      {},
      "The console signs in the way any MCP client does: on this Worker's sign-in page, with a one-time link from ",
      h("code", {}, "npm run token -- login-link --user <name>"),
      " or an API token, and then you allow the console what it asks.",
    ),
    h("p", { class: "help" }, "Its tokens stay in this tab only (sessionStorage) and are revoked when you sign out."),
    h("div", { class: "actions" }, button),
    status,
  );
  clear(main, panel);
  button.focus();
}

/** @param {import("./tools.js").ServerInfo[]} servers */
function consoleView(servers) {
  const scopes = grantedScopes();
  const signOutButton = h("button", { type: "button", id: "sign-out" }, "Sign out");
  signOutButton.addEventListener("click", async () => {
    signOutButton.disabled = true;
    await signOut();
    signInView({ text: "Signed out: the console's tokens are revoked." });
  });
  clear(
    account,
    h(
      "span",
      { class: "muted small", id: "granted", title: scopes.join(" ") },
      `Signed in · ${scopes.length} permission${scopes.length === 1 ? "" : "s"}`,
    ),
    " ",
    signOutButton,
  );

  const tabs = PANELS.map((panel, index) =>
    h(
      "button",
      {
        type: "button",
        role: "tab",
        id: `tab-${panel.id}`,
        "aria-controls": `panel-${panel.id}`,
        "aria-selected": index === 0 ? "true" : "false",
        tabindex: index === 0 ? "0" : "-1",
      },
      panel.label,
    ),
  );
  const sections = PANELS.map((panel, index) =>
    h("section", {
      role: "tabpanel",
      id: `panel-${panel.id}`,
      "aria-labelledby": `tab-${panel.id}`,
      tabindex: "0",
      hidden: index !== 0,
      class: "panel",
    }),
  );
  const rendered = new Set();
  /**
   * @param {number} index
   * @param {boolean} focus
   */
  const show = (index, focus) => {
    tabs.forEach((tab, i) => {
      tab.setAttribute("aria-selected", String(i === index));
      tab.tabIndex = i === index ? 0 : -1;
      sections[i].hidden = i !== index;
    });
    if (focus) tabs[index].focus();
    // Sources, RAG health, chat and activity are (re)loaded each time their tab opens: they change.
    const panel = PANELS[index];
    if (panel.id === "tools") {
      if (!rendered.has("tools")) panel.render(sections[index], servers);
    } else {
      panel.render(sections[index], servers);
    }
    rendered.add(panel.id);
    history.replaceState(null, "", `#${panel.id}`);
  };
  const tablist = h("div", { role: "tablist", "aria-label": "Console sections", class: "tabs" }, tabs);
  tabs.forEach((tab, index) => {
    tab.addEventListener("click", () => show(index, false));
    tab.addEventListener("keydown", (event) => {
      /** @type {Record<string, number>} */
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
  clearTokens();
  signInView({ text: `The Worker no longer accepts your sign-in (${error.message}). Sign in again.`, error: true });
});

async function start() {
  if (isSignInCallback()) {
    try {
      await completeSignIn();
    } catch (error) {
      return signInView({ text: messageOf(error), error: true });
    }
  }
  if (!getTokens()) return signInView();
  try {
    consoleView(await listServers());
  } catch (error) {
    // A 401 has already brought the sign-in view (onUnauthorized).
    if (!(error && /** @type {{ status?: number }} */ (error).status === 401)) signInView({ text: messageOf(error), error: true });
  }
}

start();
