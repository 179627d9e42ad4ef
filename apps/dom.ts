// A tiny element builder for the apps (no framework: each app is one self-contained HTML document).
type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | boolean | undefined> = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === true) element.setAttribute(name, "");
    else if (typeof value === "string") element.setAttribute(name, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child);
  }
  return element;
}

/** Replaces an element's children. */
export function clear(element: Element, ...children: (Child | Child[])[]): void {
  element.replaceChildren();
  for (const child of children.flat()) if (child !== null && child !== undefined && child !== false) element.append(child);
}

/** The structured content of a tool result, or the error text of one that failed. */
export function structured(result: { isError?: boolean; structuredContent?: unknown; content?: unknown }): unknown {
  if (result.isError) {
    const content = Array.isArray(result.content) ? result.content : [];
    const text = content.map((item: unknown) => (isRecord(item) && typeof item["text"] === "string" ? item["text"] : "")).join(" ");
    throw new Error(text || "The tool failed");
  }
  return result.structuredContent;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
