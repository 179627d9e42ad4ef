/**
 * A paging cursor is opaque to clients but still client input: a tampered one (an offset no
 * database can bind, a fraction, extra fields) is a 400 / invalid_input naming `cursor` on every
 * endpoint that pages — REST and MCP, through the SDK and through the fast path — never a 500.
 */
import { describe, expect, it } from "vitest";
import { connect, ERAS } from "../../helpers/mcp";
import { api, type ErrorBody } from "../../helpers/rest";
import { callError } from "../../helpers/tasks";
import { createUser } from "../../helpers/users";

const encode = (json: string) => btoa(json).replace(/=+$/, "");

const TAMPERED = [
  encode('{"o":1e99}'),
  encode('{"o":9007199254740992}'),
  encode('{"o":-1}'),
  encode('{"o":1.5}'),
  encode('{"o":"5"}'),
  encode('{"o":5,"k":"created"}'),
  encode("[3]"),
  encode("null"),
  encode("not json"),
  "%%%",
];

const PAGED = [
  { path: "/api/tasks", tool: "list_tasks", server: "tasks" },
  { path: "/api/documents", tool: "rag_list_documents", server: "rag" },
] as const;

describe.each(PAGED)("a tampered cursor on $path / $tool", ({ path, tool, server }) => {
  it.each(TAMPERED)("REST: %s is a 400 naming cursor", async (cursor) => {
    const user = await createUser();
    const res = await api<ErrorBody>(user, "GET", `${path}?cursor=${encodeURIComponent(cursor)}`);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error).toMatchObject({ code: "invalid_input", details: { field: "cursor" } });
    expect(res.body.error.message).toMatch(/^cursor: /);
  });

  it.each(ERAS)("MCP (%s): every tampered cursor is an invalid_input result naming cursor", async (era) => {
    const user = await createUser();
    const client = await connect(server, user.token, era);
    for (const cursor of TAMPERED) {
      expect(await callError(client, tool, { cursor }), cursor).toBe(
        `invalid_input: cursor: not a cursor returned by ${tool}; omit it to start from the first page`,
      );
    }
    await client.close();
  });
});
