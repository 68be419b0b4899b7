/**
 * Who may sign in (AUTH_SERVER_ALLOW): a comma-separated list of verified email addresses (`alice@example.com`),
 * email domains (`*@example.com`, that domain exactly), GitHub accounts by their immutable id (`github:id:583231`)
 * or login (`github:octocat`), and GitHub organisations (`github-org:acme`, active members). A login or an
 * organisation's name can change hands after a rename, so a name admits only while it is bound to the id GitHub gave
 * it when it first admitted someone (admit.ts). Emails count only when the provider says they are verified. An empty
 * list is refused at start-up: a server anyone with an account could sign in to is not private.
 */

export interface UpstreamIdentity {
  /** The principal's subject: `github:<numeric id>` or `oidc:<sub>`, stable across renames. */
  subject: string;
  /** Verified email addresses, lowercased. */
  emails: string[];
  /** The GitHub account's immutable id (GitHub only). */
  githubId?: number;
  /** The GitHub login, lowercased (GitHub only). */
  githubLogin?: string;
  /** The GitHub organisations of the allow-list the person is an active member of: the name, lowercased, and its id. */
  githubOrgs?: Array<{ name: string; id: number }>;
}

/**
 * An entry that lets an identity in: one that decides alone (an email, a domain, a GitHub id), or a GitHub name,
 * which holds only while that name is bound to `id`, the id GitHub gives it now.
 */
export type Admission =
  | { by: 'entry' }
  | { by: 'name'; kind: 'github' | 'github-org'; name: string; id: number };

export interface AllowList {
  emails: ReadonlySet<string>;
  domains: ReadonlySet<string>;
  githubUsers: ReadonlySet<string>;
  githubUserIds: ReadonlySet<number>;
  githubOrgs: readonly string[];
  /** The entries that would let someone with this identity in (none: refused). */
  admissions(identity: UpstreamIdentity): Admission[];
  /** True when the decision needs the person's verified emails (the provider is asked only then). */
  readonly needsEmails: boolean;
}

const VARIABLE = 'AUTH_SERVER_ALLOW';
const EMAIL = /^[^\s@,]+@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)$/;
const DOMAIN = /^\*@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)$/;
/** GitHub logins and organisation names: alphanumerics and single hyphens, at most 39 characters. */
const GITHUB_ID = /^id:([1-9][0-9]{0,15})$/;
const GITHUB_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,37}[A-Za-z0-9])?$/;

/** The allow-list in `raw`, or a TypeError naming the variable and the entry it cannot read. */
export function readAllowList(raw: string | undefined, provider: 'github' | 'oidc'): AllowList {
  const entries = (raw ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
  if (!entries.length) {
    throw new TypeError(`${VARIABLE} must list who may sign in (e.g. "alice@example.com, *@example.com, github:id:583231, github:octocat, github-org:acme"): `
      + 'without it anyone with an account at the provider could.');
  }
  const emails = new Set<string>();
  const domains = new Set<string>();
  const githubUsers = new Set<string>();
  const githubUserIds = new Set<number>();
  const githubOrgs: string[] = [];
  for (const entry of entries) {
    const [kind, name] = entry.includes(':') ? [entry.slice(0, entry.indexOf(':')), entry.slice(entry.indexOf(':') + 1)] : ['', entry];
    if ((kind === 'github' || kind === 'github-org') && provider !== 'github') {
      throw new TypeError(`${VARIABLE} entry "${entry}" names GitHub, but AUTH_SERVER_PROVIDER is ${provider}.`);
    }
    if (kind === 'github' && GITHUB_ID.test(name)) githubUserIds.add(Number(GITHUB_ID.exec(name)![1]));
    else if (kind === 'github' && GITHUB_NAME.test(name)) githubUsers.add(name.toLowerCase());
    else if (kind === 'github-org' && GITHUB_NAME.test(name)) githubOrgs.push(name.toLowerCase());
    else if (kind === '' && DOMAIN.test(entry)) domains.add(DOMAIN.exec(entry)![1]!.toLowerCase());
    else if (kind === '' && EMAIL.test(entry)) emails.add(entry.toLowerCase());
    else throw new TypeError(`${VARIABLE} entry "${entry}" is not an email, *@domain, github:id:<account id>, github:<user> or github-org:<organisation>.`);
  }
  return {
    emails,
    domains,
    githubUsers,
    githubUserIds,
    githubOrgs: [...new Set(githubOrgs)],
    needsEmails: emails.size > 0 || domains.size > 0,
    admissions(identity) {
      const found: Admission[] = [];
      const byEmail = identity.emails.some((email) => emails.has(email) || domains.has(email.slice(email.lastIndexOf('@') + 1)));
      if (byEmail || (identity.githubId !== undefined && githubUserIds.has(identity.githubId))) found.push({ by: 'entry' });
      if (identity.githubId !== undefined && identity.githubLogin !== undefined && githubUsers.has(identity.githubLogin)) {
        found.push({ by: 'name', kind: 'github', name: identity.githubLogin, id: identity.githubId });
      }
      for (const org of identity.githubOrgs ?? []) {
        if (githubOrgs.includes(org.name)) found.push({ by: 'name', kind: 'github-org', name: org.name, id: org.id });
      }
      return found;
    },
  };
}
