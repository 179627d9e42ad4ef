// The task board (ui://tasks/task-board.html, opened by show_task_board): see, filter, add, complete
// and reprioritise tasks. Every change goes through the tasks server's own tools, called through the host.
import type { App } from "@modelcontextprotocol/ext-apps";
import { clear, h, isRecord, structured } from "./dom";

const PRIORITIES = ["high", "medium", "low", "none"] as const;

interface Task {
  id: number;
  title: string;
  status: string;
  priority: string;
  due_date: string | null;
  tags: string[];
}

function tasksOf(content: unknown): Task[] {
  if (!isRecord(content) || !Array.isArray(content["tasks"])) return [];
  return content["tasks"].filter((task): task is Task => isRecord(task) && typeof task["id"] === "number");
}

function select(name: string, label: string, options: readonly string[], value: string): HTMLSelectElement {
  const element = h("select", { name, "aria-label": label });
  for (const option of options) element.append(h("option", { value: option, selected: option === value }, option === "" ? "any" : option));
  return element;
}

export function startTaskBoard(app: App, root: HTMLElement): void {
  const status = select("status", "Status", ["pending", "completed", "all"], "pending");
  const priority = select("priority", "Priority", ["", ...PRIORITIES], "");
  const search = h("input", { type: "search", name: "search", placeholder: "Search", "aria-label": "Search tasks" });
  const list = h("ul", { class: "tasks", "aria-label": "Tasks", "aria-live": "polite" });
  const notice = h("p", { class: "notice", role: "status" });
  const title = h("input", { name: "title", placeholder: "New task", "aria-label": "New task title", required: true });
  const newPriority = select("new-priority", "New task priority", PRIORITIES, "none");
  const add = h("form", { class: "add" }, title, newPriority, h("button", { type: "submit" }, "Add"));
  clear(root, h("h1", {}, "Tasks"), h("form", { class: "filters" }, status, priority, search), list, add, notice);

  const call = async (name: string, args: Record<string, unknown>): Promise<unknown> => {
    notice.textContent = "";
    try {
      return structured(await app.callServerTool({ name, arguments: args }));
    } catch (error) {
      notice.textContent = error instanceof Error ? error.message : String(error);
      throw error;
    }
  };

  const render = (tasks: Task[]) => {
    clear(
      list,
      tasks.length === 0
        ? h("li", { class: "empty" }, "No tasks.")
        : tasks.map((task) => {
            const done = h("input", {
              type: "checkbox",
              checked: task.status === "completed",
              "aria-label": `${task.status === "completed" ? "Reopen" : "Complete"} ${task.title}`,
              "data-task": String(task.id),
            });
            done.addEventListener("change", () => void call("complete_task", { task_id: task.id }).then(refresh, refresh));
            const level = select("task-priority", `Priority of ${task.title}`, PRIORITIES, task.priority);
            level.addEventListener(
              "change",
              () => void call("set_priority", { task_id: task.id, priority: level.value }).then(refresh, refresh),
            );
            return h(
              "li",
              { class: `task ${task.status}`, "data-task-id": String(task.id) },
              done,
              h("span", { class: "title" }, task.title),
              task.due_date ? h("span", { class: "due" }, task.due_date.slice(0, 10)) : null,
              level,
            );
          }),
    );
  };

  const refresh = async () => {
    const args: Record<string, unknown> = { status: status.value, sort_by: "due_date", limit: 100 };
    if (priority.value) args["priority"] = priority.value;
    if (search.value.trim()) args["search"] = search.value.trim();
    try {
      render(tasksOf(await call("list_tasks", args)));
    } catch {
      // The notice shows what failed; the list stays as it was.
    }
  };

  for (const control of [status, priority]) control.addEventListener("change", () => void refresh());
  search.addEventListener("input", () => void refresh());
  add.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = title.value.trim();
    if (!text) return;
    void call("add_task", { title: text, priority: newPriority.value }).then(() => {
      title.value = "";
      return refresh();
    }, refresh);
  });

  // The tool that opened the board sends its own listing (show_task_board's filters) first.
  app.ontoolinput = ({ arguments: args }) => {
    if (isRecord(args) && typeof args["status"] === "string") status.value = args["status"];
    if (isRecord(args) && typeof args["priority"] === "string") priority.value = args["priority"];
  };
  app.ontoolresult = (result) => {
    if (!result.isError) render(tasksOf(result.structuredContent));
  };
}
