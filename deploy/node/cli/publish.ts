/**
 * `quire publish`: the owner publishes a note or a folder read-only at a link, lists and revokes
 * publications, through the running server's /api/v1/publications with the owner's key in
 * QUIRE_API_KEY (as `quire people`).
 */
import { CliProblem, type Command, EXIT, parse, serverCommandHelp, UsageError } from './common.ts';
import { ownerCalls } from './owner-calls.ts';

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--expires 7d` (m, h or d from now) or an ISO 8601 instant, as an ISO instant. */
export function parseExpiry(text: string, now = Date.now()): string {
  const m = /^(\d{1,6})([mhd])$/.exec(text.trim());
  if (m) return new Date(now + Number(m[1]) * UNITS[m[2]!]!).toISOString();
  const t = Date.parse(text);
  if (Number.isNaN(t)) throw new UsageError(`--expires ${text}: use 30m, 12h, 7d or an ISO 8601 instant.`);
  return new Date(t).toISOString();
}

export const publish: Command = {
  help: `Usage: quire publish <path> [--expires <when>] [--password] [--index]
       quire publish list | revoke <id>

  <path>          A note (ends in .md) or a folder ("" the whole vault) to show read-only at a link;
                  prints the link, directly and through the relay
    --expires 7d  Stop answering after 30m, 12h, 7d... or an ISO 8601 instant
    --password    Ask readers for the password in QUIRE_PUBLISH_PASSWORD (never on the command
                  line, where other users and the shell history could read it)
    --index       Let search engines index the pages (by default they are asked not to)
  list            Every publication: id, path, expiry, password or not, its link
  revoke <id>     Stop it: its next page request answers 404

The running server is asked (/api/v1/publications) with the owner's key in QUIRE_API_KEY.

${serverCommandHelp()}`,
  async run(args, io) {
    const { values, positionals } = parse(
      args,
      {
        url: { type: 'string' },
        json: { type: 'boolean' },
        expires: { type: 'string' },
        password: { type: 'boolean' },
        index: { type: 'boolean' },
      },
      true,
    );
    if (values.help) {
      io.out(`${this.help}\n`);
      return EXIT.ok;
    }
    const [first, arg, ...extra] = positionals;
    if (first === undefined)
      throw new UsageError('Say what to publish: quire publish <path>, list or revoke <id>.');
    const action = first === 'list' || first === 'revoke' ? first : 'publish';
    if (action === 'revoke' && !arg) throw new UsageError('quire publish revoke <id>.');
    if (extra.length > 0 || (action !== 'revoke' && arg)) throw new UsageError('Too many arguments.');
    if (action !== 'publish' && (values.expires || values.password || values.index))
      throw new UsageError('--expires, --password and --index go with quire publish <path>.');
    const password = values.password ? io.env.QUIRE_PUBLISH_PASSWORD : undefined;
    if (values.password && !password)
      throw new UsageError('--password reads QUIRE_PUBLISH_PASSWORD; set it.');
    const expiresAt = values.expires ? parseExpiry(values.expires) : undefined;
    const { api, wrap, print } = ownerCalls(io, values);
    try {
      if (action === 'list') {
        const rows = await wrap(api.publications.list());
        const line = (p: (typeof rows)[number]) =>
          `${p.id}  ${(p.path || '(vault)').padEnd(24)}  ${p.active ? (p.expiresAt ? `until ${p.expiresAt}` : 'no expiry') : 'expired'}  ${p.password ? 'password' : 'open'}  ${p.relayUrl ?? p.url}`;
        print(rows, rows.length ? rows.map(line).join('\n') : 'Nothing is published.');
      } else if (action === 'revoke') {
        print(await wrap(api.publications.revoke(arg!)), `Revoked ${arg}: its pages answer 404 from now on.`);
      } else {
        const p = await wrap(
          api.publications.publish(first, {
            ...(expiresAt ? { expiresAt } : {}),
            ...(password ? { password } : {}),
            noindex: !values.index,
          }),
        );
        const where = p.relayUrl ? `${p.url}\nThrough the relay: ${p.relayUrl}` : p.url;
        print(p, `Published ${p.path || 'the whole vault'} read-only (id ${p.id}):\n${where}`);
      }
    } catch (err) {
      if (err instanceof CliProblem || err instanceof UsageError) throw err;
      if (err instanceof Error && 'code' in err && typeof (err as { code: unknown }).code === 'string')
        throw new CliProblem(err.message);
      throw err;
    }
    return EXIT.ok;
  },
};
