/**
 * A dynamic registration's body as the library gets it: the client's name cleaned (client-names.ts)
 * and display-only URLs that are not usable dropped (display-uris.ts). Anything that is not a JSON
 * object is passed on as it came, for the library to refuse.
 */
import { isJsonObject } from "../lib/json";
import { withCleanClientName } from "./client-names";
import { withUsableDisplayUris } from "./display-uris";

export function cleanedRegistration(registration: string): string {
  let metadata: unknown;
  try {
    metadata = JSON.parse(registration);
  } catch {
    return registration;
  }
  if (!isJsonObject(metadata)) return registration;
  return JSON.stringify(withUsableDisplayUris(withCleanClientName(metadata)));
}
