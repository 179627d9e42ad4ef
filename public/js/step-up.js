// @ts-check
// An error as the panels show it. When the Worker answered 403 insufficient_scope (the sign-in
// did not include a permission this action needs), the box offers to sign in again asking for
// the permissions the console has plus the ones named — the consent page then asks the user.
import { messageOf } from "./api.js";
import { errorBox, h } from "./dom.js";
import { beginSignIn, grantedScopes } from "./oauth.js";

/**
 * @param {unknown} error
 * @param {string} [title]
 */
export function errorView(error, title) {
  const box = errorBox(messageOf(error), title);
  const offered = /** @type {{ neededScopes?: unknown } | null | undefined} */ (error)?.neededScopes;
  /** @type {string[]} */
  const needed = Array.isArray(offered) ? offered : [];
  if (needed.length === 0) return box;
  const allow = h("button", { type: "button", class: "primary step-up" }, `Allow ${needed.join(", ")}`);
  allow.addEventListener("click", () => {
    allow.disabled = true;
    beginSignIn({ scopes: [...new Set([...grantedScopes(), ...needed])] }).catch((failure) => {
      allow.disabled = false;
      box.append(h("p", {}, messageOf(failure)));
    });
  });
  box.append(
    h(
      "p",
      { class: "step-up-offer" },
      "Your sign-in does not include this permission. ",
      allow,
      h("span", { class: "muted small" }, " (you will be asked to approve it, then come back here)"),
    ),
  );
  return box;
}
