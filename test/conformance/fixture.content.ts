/**
 * The resources, resource template, prompts and completion the conformance suite's server scenarios
 * read, named and shaped as the suite specifies. Subscriptions (resources/subscribe) are deliberately
 * absent: a stateless endpoint has no channel to deliver updates on (see expected-failures.yml).
 */
import { completable, type McpServer, ResourceTemplate } from "@modelcontextprotocol/server";
import { z } from "zod";
import { RED_PIXEL_PNG } from "./fixture.media";

const userText = (text: string) => ({ role: "user" as const, content: { type: "text" as const, text } });

export function registerScenarioResources(server: McpServer): void {
  server.registerResource(
    "static-text",
    "test://static-text",
    { description: "A static text resource", mimeType: "text/plain" },
    (uri) => ({
      contents: [{ uri: uri.href, mimeType: "text/plain", text: "This is the content of the static text resource." }],
    }),
  );
  server.registerResource(
    "static-binary",
    "test://static-binary",
    { description: "A static PNG resource", mimeType: "image/png" },
    (uri) => ({
      contents: [{ uri: uri.href, mimeType: "image/png", blob: RED_PIXEL_PNG }],
    }),
  );
  server.registerResource(
    "template-data",
    new ResourceTemplate("test://template/{id}/data", { list: undefined }),
    { description: "Data for an id, from a URI template", mimeType: "application/json" },
    (uri, { id }) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: "application/json",
          text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${String(id)}` }),
        },
      ],
    }),
  );
}

export function registerScenarioPrompts(server: McpServer): void {
  server.registerPrompt("test_simple_prompt", { description: "A prompt without arguments" }, () => ({
    messages: [userText("This is a simple prompt for testing.")],
  }));

  server.registerPrompt(
    "test_prompt_with_arguments",
    {
      description: "A prompt with two arguments; arg1 offers completions",
      argsSchema: z.object({
        arg1: completable(z.string().describe("First test argument"), (value) =>
          ["paris", "park", "party"].filter((option) => option.startsWith(value)),
        ),
        arg2: z.string().describe("Second test argument"),
      }),
    },
    ({ arg1, arg2 }) => ({ messages: [userText(`Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`)] }),
  );

  server.registerPrompt(
    "test_prompt_with_embedded_resource",
    {
      description: "A prompt embedding a resource",
      argsSchema: z.object({ resourceUri: z.string().describe("URI of the resource to embed") }),
    },
    ({ resourceUri }) => ({
      messages: [
        {
          role: "user",
          content: {
            type: "resource",
            resource: { uri: resourceUri, mimeType: "text/plain", text: "Embedded resource content for testing." },
          },
        },
        userText("Please process the embedded resource above."),
      ],
    }),
  );

  server.registerPrompt("test_prompt_with_image", { description: "A prompt with an image" }, () => ({
    messages: [
      { role: "user", content: { type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" } },
      userText("Please analyze the image above."),
    ],
  }));
}
