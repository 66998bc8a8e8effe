/**
 * Checks of what is published to anyone with a link (core/publish): the whole vault, folders
 * (every note added to them later is public at once), publications without a password (the link is
 * the only secret) and without an expiry (they outlive the reason they were made). Expired ones
 * answer 410 and are not counted.
 */
import { type Check, list } from './checks.ts';
import type { PublicationFact, SecuritySnapshot } from './types.ts';

const live = (s: SecuritySnapshot): PublicationFact[] => (s.publications ?? []).filter((p) => p.active);
const named = (ps: PublicationFact[]) => list(ps.map((p) => `${p.path || '(the whole vault)'} (${p.id})`));
const revoke = 'quire publish list, then quire publish revoke <id> (or DELETE /api/v1/publications/<id>).';

export const PUBLISH_CHECKS: readonly Check[] = [
  {
    id: 'published-whole-vault',
    severity: 'high',
    title: 'The whole vault is published',
    test: (s) => {
      const all = live(s).filter((p) => p.kind === 'folder' && p.path === '' && !p.password);
      return all.length
        ? `${named(all)} shows every note of the vault, and every note added later, to anyone with the link.`
        : null;
    },
    recommendation: 'Publish the folders meant for readers instead, or give the publication a password.',
    fix: () => ({ steps: [revoke, 'quire publish <folder> for each folder meant for readers.'] }),
  },
  {
    id: 'published-folders',
    severity: 'medium',
    title: 'Folders are published without a password',
    test: (s) => {
      const open = live(s).filter((p) => p.kind === 'folder' && p.path !== '' && !p.password);
      return open.length
        ? `${named(open)}: every note written into ${open.length === 1 ? 'it' : 'them'} later is public at once, to anyone with the link.`
        : null;
    },
    recommendation:
      'Keep published folders for notes meant for the public; publish single notes, or add a password.',
    fix: () => ({
      steps: [
        revoke,
        'QUIRE_PUBLISH_PASSWORD=… quire publish <folder> --password to publish it again behind a password.',
      ],
    }),
  },
  {
    id: 'publication-no-password',
    severity: 'low',
    title: 'Publications without a password',
    test: (s) => {
      const open = live(s).filter((p) => !p.password);
      return open.length
        ? `${named(open)} can be read by anyone who has or guesses the link; the link is the only secret.`
        : null;
    },
    recommendation: 'Add a password to publications that are not meant for everyone.',
    fix: () => ({
      steps: [revoke, 'QUIRE_PUBLISH_PASSWORD=… quire publish <path> --password to publish it again.'],
    }),
  },
  {
    id: 'publication-no-expiry',
    severity: 'low',
    title: 'Publications without an expiry',
    test: (s) => {
      const forever = live(s).filter((p) => p.expiresAt === null);
      return forever.length
        ? `${named(forever)} stay${forever.length === 1 ? 's' : ''} published until revoked.`
        : null;
    },
    recommendation:
      'Give publications an expiry (quire publish <path> --expires 30d) when they serve a moment.',
    fix: () => ({ steps: [revoke, 'quire publish <path> --expires 30d to publish it again until a date.'] }),
  },
];
