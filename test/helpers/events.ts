/** A well-formed task event that no tool call produced, for driving the queue side on its own. */
import type { TaskEvent } from "../../workers/tasks/task-events.schema";

export function syntheticEvent(overrides: Partial<TaskEvent> = {}): TaskEvent {
  const at = new Date().toISOString();
  return {
    event_id: crypto.randomUUID(),
    type: "CREATED",
    version: 1,
    occurred_at: at,
    user_id: 1,
    task_id: 1,
    task: {
      id: 1,
      title: "t",
      description: "t",
      status: "pending",
      priority: "none",
      due_date: null,
      tags: [],
      recurrence_pattern: null,
      completed_at: null,
      created_at: at,
      updated_at: at,
    },
    ...overrides,
  };
}
