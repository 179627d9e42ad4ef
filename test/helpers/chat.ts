/**
 * One chat before a file's chat tests: the agent Worker imports its core (the AI SDK, the model
 * providers) on its first message and the main Worker builds its gateway on the first /mcp request,
 * so no test's MCP start-up deadline (5 s) is spent on either on a loaded machine.
 */
import { api } from "./rest";
import { createUser } from "./users";

export async function warmUpChat(): Promise<void> {
  const res = await api(await createUser(), "POST", "/api/chat", { body: { message: "list my tasks" } });
  if (res.status !== 200) throw new Error(`the warm-up chat answered ${res.status}`);
}
