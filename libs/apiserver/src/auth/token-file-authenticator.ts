import { readFileSync } from 'node:fs';
import { timingSafeEqual, createHash } from 'node:crypto';
import type { AuthenticationOutcome } from '@svc/machinery';
import type { TokenAuthenticator } from './token-authenticator';
import type { UserInfo } from '@svc/machinery';

/**
 * `--token-auth-file`: Kubernetes' CSV of `token,user,uid[,"group1,group2"]`, read once at start.
 * Lookups go through a hash of the token so no comparison of a secret leaks its length or prefix.
 */
export class TokenFileAuthenticator implements TokenAuthenticator {
  readonly name = 'token-file';
  private readonly users = new Map<string, { token: Buffer; user: UserInfo }>();

  constructor(entries: ReadonlyArray<{ token: string; user: UserInfo }>) {
    for (const entry of entries) this.users.set(digest(entry.token), { token: Buffer.from(entry.token), user: entry.user });
  }

  static fromFile(path: string): TokenFileAuthenticator {
    return new TokenFileAuthenticator(parseTokenFile(readFileSync(path, 'utf8'), path));
  }

  authenticateToken(token: string): AuthenticationOutcome {
    const entry = this.users.get(digest(token));
    if (entry === undefined) return undefined;
    const given = Buffer.from(token);
    if (given.length !== entry.token.length || !timingSafeEqual(given, entry.token)) return undefined;
    return { user: entry.user };
  }
}

function digest(token: string): string {
  return createHash('sha256').update(token).digest('base64');
}

/** Parses the static token file; a line with fewer than three fields or an empty token is an error naming its line. */
export function parseTokenFile(text: string, source = 'token file'): Array<{ token: string; user: UserInfo }> {
  const entries: Array<{ token: string; user: UserInfo }> = [];
  const seen = new Set<string>();
  parseCsv(text).forEach(({ fields, line }) => {
    if (fields.length === 1 && fields[0].trim() === '') return;
    if (fields.length < 3) throw new Error(`${source}: line ${line}: expected at least 3 fields (token,user,uid), found ${fields.length}`);
    const [token, name, uid] = fields.map((f) => f.trim());
    if (token === '') throw new Error(`${source}: line ${line}: empty token`);
    if (name === '') throw new Error(`${source}: line ${line}: empty user name`);
    if (seen.has(token)) throw new Error(`${source}: line ${line}: duplicate token`);
    seen.add(token);
    const groups =
      fields.length > 3
        ? fields[3]
            .split(',')
            .map((g) => g.trim())
            .filter((g) => g !== '')
        : [];
    entries.push({ token, user: { name, uid, groups } });
  });
  return entries;
}

/** RFC 4180 records as Go's encoding/csv reads them: quoted fields, doubled quotes, CRLF or LF. */
export function parseCsv(text: string): Array<{ fields: string[]; line: number }> {
  const records: Array<{ fields: string[]; line: number }> = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let recordLine = 1;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else {
        if (ch === '\n') line++;
        field += ch;
      }
      continue;
    }
    if (ch === '"' && field === '') quoted = true;
    else if (ch === ',') {
      fields.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      fields.push(field);
      records.push({ fields, line: recordLine });
      fields = [];
      field = '';
      line++;
      recordLine = line;
    } else field += ch;
  }
  if (quoted) throw new Error(`line ${recordLine}: unterminated quoted field`);
  if (field !== '' || fields.length > 0) {
    fields.push(field);
    records.push({ fields, line: recordLine });
  }
  return records;
}
