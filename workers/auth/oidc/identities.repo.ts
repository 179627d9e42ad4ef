/**
 * D1 access of OpenID Connect sign-in: the local user of an (issuer, subject), created at the first
 * sign-in with a clean, unused name. Two first sign-ins of the same subject racing each other end
 * with one user: the identity's unique index decides, and the loser's fresh user is removed.
 */
import { and, eq } from "drizzle-orm";
import { userIdentities, users } from "../../../d1/schema";
import type { Db } from "../../lib/db";
import type { AuthUser } from "../principal";
import type { OidcIdentity } from "./oidc-client";
import { baseUserName, userNameCandidates } from "./user-names";

function findLinkedUser(db: Db, issuer: string, subject: string): Promise<AuthUser | undefined> {
  return db
    .select({ id: users.id, name: users.name })
    .from(userIdentities)
    .innerJoin(users, eq(users.id, userIdentities.userId))
    .where(and(eq(userIdentities.issuer, issuer), eq(userIdentities.subject, subject)))
    .get();
}

/** A new user under the first free name of the candidates. */
async function insertUser(db: Db, base: string): Promise<AuthUser> {
  for (const name of userNameCandidates(base)) {
    const row = await db
      .insert(users)
      .values({ name })
      .onConflictDoNothing({ target: users.name })
      .returning({ id: users.id, name: users.name })
      .get();
    if (row) return row;
  }
  throw new Error(`no free user name for ${base}`);
}

/** The user this identity signs in as: the linked one, or a new one at the first sign-in. */
export async function userForIdentity(db: Db, identity: OidcIdentity, now: string): Promise<{ user: AuthUser; created: boolean }> {
  const linked = await findLinkedUser(db, identity.issuer, identity.subject);
  if (linked) {
    await db
      .update(userIdentities)
      .set({ lastSignInAt: now })
      .where(and(eq(userIdentities.issuer, identity.issuer), eq(userIdentities.subject, identity.subject)));
    return { user: linked, created: false };
  }
  const user = await insertUser(db, baseUserName(identity.claims));
  const link = await db
    .insert(userIdentities)
    .values({ userId: user.id, issuer: identity.issuer, subject: identity.subject, createdAt: now, lastSignInAt: now })
    .onConflictDoNothing({ target: [userIdentities.issuer, userIdentities.subject] })
    .returning({ id: userIdentities.id })
    .get();
  if (link) return { user, created: true };
  // Another request linked this subject first: keep its user, drop ours (it owns nothing yet).
  await db.delete(users).where(eq(users.id, user.id));
  const winner = await findLinkedUser(db, identity.issuer, identity.subject);
  if (!winner) throw new Error("identity link vanished while signing in");
  return { user: winner, created: false };
}
