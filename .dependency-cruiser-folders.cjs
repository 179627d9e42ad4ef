/**
 * No cycles between folders (workers/<area>/…, durable-objects/, d1/), type-only imports included:
 * each area can be read, tested and changed knowing only the areas below it.
 *
 * The files directly in workers/ are left out of this check: they are the wiring (the entry, the
 * server and queue-event registries, and the composition root workers/services.ts), which by
 * design knows every area, while the adapters of every area know the composition root's
 * `Services` type. Their own direction is checked module by module in .dependency-cruiser.cjs.
 */
const main = require("./.dependency-cruiser.cjs");

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-folder-cycles",
      comment: "Folders depend on each other one way only.",
      severity: "error",
      scope: "folder",
      from: {},
      to: { circular: true },
    },
  ],
  // The agent Worker's entry (workers/agent-worker/worker.ts) is wiring too: it re-exports ChatAgent.
  options: { ...main.options, exclude: { path: `^workers/[^/]+[.]ts$|^workers/agent-worker/worker[.]ts$|${main.options.exclude.path}` } },
};
