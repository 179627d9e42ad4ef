/**
 * The ceiling peer: a Worker that reads the request and answers a fixed, pre-rendered body. It
 * measures what workerd + loopback HTTP + the load generator cost on this machine for responses of
 * the same bytes mcp-edge sends (the bench captures mcp-edge's sample responses and passes them in).
 */
interface CeilingEnv {
  /** JSON: { "<tool name>": { body, contentType } } for tools/list, list_tasks and add_task. */
  RESPONSES: string;
}

interface Fixed {
  body: string;
  contentType: string;
}

let fixed: Record<string, Fixed> | undefined;

function pick(request: string, responses: Record<string, Fixed>): Fixed | undefined {
  // A substring test, not a JSON parse: the ceiling should do as little as possible.
  if (request.includes('"list_tasks"')) return responses["list_tasks"];
  if (request.includes('"add_task"')) return responses["add_task"];
  return responses["tools/list"];
}

export default {
  async fetch(request, env) {
    fixed ??= JSON.parse(env.RESPONSES) as Record<string, Fixed>;
    const chosen = pick(await request.text(), fixed);
    if (!chosen) return new Response("no fixed body configured", { status: 500 });
    return new Response(chosen.body, { headers: { "content-type": chosen.contentType } });
  },
} satisfies ExportedHandler<CeilingEnv>;
