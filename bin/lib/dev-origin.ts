/**
 * Where `npm run dev` serves: http://localhost:<PORT>, 8787 unless PORT says otherwise. One place,
 * so every command that prints a local link (the dev banner, `npm run token -- login-link`) names
 * the port the server really listens on.
 */
export const DEFAULT_DEV_PORT = "8787";

export function devPort(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const port = env["PORT"]?.trim();
  if (port === undefined || port === "") return DEFAULT_DEV_PORT;
  if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535)
    throw new Error(`PORT=${port}: expected a TCP port number (1–65535)`);
  return port;
}

/** The local origin a browser opens (localhost, not 127.0.0.1: that is the dev OAuth issuer). */
export function devOrigin(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return `http://localhost:${devPort(env)}`;
}
