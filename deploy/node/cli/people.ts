/**
 * `quire people`: the owner adds people, shares folders with them and prints their invite links,
 * through the running server's /api/v1/people with the owner's key in QUIRE_API_KEY (the server
 * keeps the people in memory, so there is no offline mode).
 */
import { CliProblem, type Command, EXIT, parse, serverCommandHelp, UsageError } from './common.ts';
import { ownerCalls } from './owner-calls.ts';

const ROLES = ['viewer', 'editor', 'manager'] as const;

/** `--share Team:editor` → {folder, role}; a bare folder is a viewer share, `:editor` the whole vault. */
export function parseShare(text: string): { folder: string; role: (typeof ROLES)[number] } {
  const at = text.lastIndexOf(':');
  const folder = at < 0 ? text : text.slice(0, at);
  const role = at < 0 ? 'viewer' : text.slice(at + 1);
  if (!(ROLES as readonly string[]).includes(role))
    throw new UsageError(`Unknown role "${role}" in --share ${text}; use viewer, editor or manager.`);
  return { folder, role: role as (typeof ROLES)[number] };
}

export const people: Command = {
  help: `Usage: quire people list | add <name> [--share <folder>:<role>]... [--owner] | invite <id>
                    | share <id> <folder>:<role> | disable <id> | enable <id> | remove <id>

  list            Every person: id, name, role, their shares (never a password or passkey)
  add <name>      Add a person and print their invite link (single use, 7 days). Share with:
                    --share Team:editor   a folder as viewer, editor or manager (repeat);
                                          ":editor" alone is the whole vault
                    --owner               an owner (the whole vault, admin) instead of a member
  invite <id>     A new invite link (the earlier one stops working)
  share <id> <folder>:<role>   Share one more folder
  disable <id>    Sign them out everywhere and refuse them until enabled (their keys end too)
  enable <id>     Let them sign in again
  remove <id>     Remove them and everything they hold

The running server is asked (/api/v1/people) with the owner's key in QUIRE_API_KEY.

${serverCommandHelp()}`,
  async run(args, io) {
    const { values, positionals } = parse(
      args,
      {
        url: { type: 'string' },
        json: { type: 'boolean' },
        share: { type: 'string', multiple: true },
        owner: { type: 'boolean' },
      },
      true,
    );
    if (values.help) {
      io.out(`${this.help}\n`);
      return EXIT.ok;
    }
    const [action, arg, third, ...extra] = positionals;
    const actions = ['list', 'add', 'invite', 'share', 'disable', 'enable', 'remove'];
    if (!action) throw new UsageError('Say what to do: quire people list, add <name>, invite <id>...');
    if (!actions.includes(action)) throw new UsageError(`Unknown people action "${action}".`);
    if (action !== 'list' && !arg)
      throw new UsageError(`quire people ${action} needs a ${action === 'add' ? 'name' : 'person id'}.`);
    if (action === 'share' && !third) throw new UsageError('quire people share <id> <folder>:<role>.');
    if (extra.length > 0 || (action !== 'share' && third) || (action === 'list' && arg))
      throw new UsageError('Too many arguments.');
    if ((values.share || values.owner) && action !== 'add')
      throw new UsageError('--share and --owner go with quire people add.');
    const shares = (values.share ?? []).map(parseShare);
    const { api, wrap, print } = ownerCalls(io, values);
    try {
      if (action === 'list') {
        const rows = await wrap(api.people.list());
        const line = (p: (typeof rows)[number]) =>
          `${p.id}  ${p.name.padEnd(20)}  ${p.role.padEnd(6)}  ${p.disabled ? 'disabled' : 'active  '}  ${
            p.shares.map((s) => `${s.folder || '(vault)'}:${s.role}`).join(', ') || 'nothing shared'
          }`;
        print(rows, rows.length ? rows.map(line).join('\n') : 'No people yet.');
      } else if (action === 'add') {
        const p = await wrap(api.people.add(arg!, values.owner ? 'owner' : undefined));
        for (const s of shares) await wrap(api.people.share(p.id, s.folder, s.role));
        const inv = await wrap(api.people.invite(p.id));
        print(
          { ...p, invite: inv },
          `Added ${p.name} (id ${p.id}). Their invite link, single use until ${inv.expiresAt}:\n${inv.link}`,
        );
      } else if (action === 'invite') {
        const inv = await wrap(api.people.invite(arg!));
        print(inv, `Invite link, single use until ${inv.expiresAt}:\n${inv.link}`);
      } else if (action === 'share') {
        const s = parseShare(third!);
        print(
          await wrap(api.people.share(arg!, s.folder, s.role)),
          `Shared ${s.folder || 'the whole vault'} as ${s.role}.`,
        );
      } else if (action === 'remove') {
        print(await wrap(api.people.remove(arg!)), `Removed ${arg}.`);
      } else {
        const p = await wrap(api.people.update(arg!, { disabled: action === 'disable' }));
        print(p, `${p.name} is ${p.disabled ? 'disabled: signed out everywhere' : 'enabled'}.`);
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
