/**
 * `daily-notes`: today's note at a path built from a pattern (`daily/{{YYYY}}/{{YYYY-MM-DD}}.md`)
 * in a configured time zone, created from a template when missing. An agent tool and two routes.
 */
import * as v from 'valibot';
import { DomainError, isDomainError } from '../../errors.ts';
import { validateNotePath } from '../../paths.ts';
import { definePlugin } from '../define.ts';
import type { PluginNotes } from '../types.ts';

/** The parts of a day that patterns and templates may use. */
export interface DayParts {
  YYYY: string;
  MM: string;
  DD: string;
  weekday: string;
}

/** The calendar day of `ms` in `timeZone`. */
export function dayParts(ms: number, timeZone: string): DayParts {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    weekday: 'long',
  }).formatToParts(new Date(ms));
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  return { YYYY: get('year'), MM: get('month'), DD: get('day'), weekday: get('weekday') };
}

/** Replaces `{{YYYY}}`, `{{MM}}`, `{{DD}}`, `{{YYYY-MM}}`, `{{YYYY-MM-DD}}`, `{{date}}`, `{{weekday}}`. */
export function fillDate(text: string, d: DayParts): string {
  const date = `${d.YYYY}-${d.MM}-${d.DD}`;
  const values: Record<string, string> = {
    YYYY: d.YYYY,
    MM: d.MM,
    DD: d.DD,
    'YYYY-MM': `${d.YYYY}-${d.MM}`,
    'YYYY-MM-DD': date,
    date,
    weekday: d.weekday,
  };
  return text.replace(/\{\{\s*([A-Za-z-]+)\s*\}\}/g, (m, k: string) => values[k] ?? m);
}

const validZone = (z: string): boolean => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: z });
    return true;
  } catch {
    return false;
  }
};
const SAMPLE: DayParts = { YYYY: '2024', MM: '02', DD: '29', weekday: 'Thursday' };
const validPattern = (p: string): boolean => {
  if (/\{\{(?!\s*(?:YYYY|MM|DD|YYYY-MM|YYYY-MM-DD|date|weekday)\s*\}\})/.test(p)) return false;
  try {
    validateNotePath(fillDate(p, SAMPLE));
    return true;
  } catch {
    return false;
  }
};

const Config = v.object({
  pathPattern: v.pipe(
    v.optional(
      v.pipe(
        v.string(),
        v.maxLength(300),
        v.check(
          validPattern,
          'Must give a note path ending in .md, using {{YYYY}}, {{MM}}, {{DD}}, {{YYYY-MM-DD}}.',
        ),
      ),
      'daily/{{YYYY}}/{{YYYY-MM-DD}}.md',
    ),
    v.description(
      'Where the day note lives; tokens {{YYYY}} {{MM}} {{DD}} {{YYYY-MM}} {{YYYY-MM-DD}} {{weekday}}.',
    ),
  ),
  template: v.pipe(
    v.optional(v.pipe(v.string(), v.maxLength(20_000)), '# {{date}}\n\n'),
    v.description('Body of a new day note; the same tokens, plus {{date}}.'),
  ),
  timeZone: v.pipe(
    v.optional(
      v.pipe(v.string(), v.check(validZone, 'Must be an IANA time zone, e.g. Europe/Berlin.')),
      () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC',
    ),
    v.description('The zone that decides what "today" is (IANA name; default: the server\'s).'),
  ),
});

/** Today's note: its path, and whether this call created it. */
async function openToday(
  notes: PluginNotes,
  cfg: v.InferOutput<typeof Config>,
  now: number,
  create: boolean,
) {
  const d = dayParts(now, cfg.timeZone);
  const path = validateNotePath(fillDate(cfg.pathPattern, d));
  const date = `${d.YYYY}-${d.MM}-${d.DD}`;
  try {
    return { date, path, created: false, note: await notes.get(path) };
  } catch (err) {
    if (!isDomainError(err) || err.code !== 'NOTE_NOT_FOUND') throw err;
  }
  if (!create) return { date, path, created: false, note: null };
  try {
    return { date, path, created: true, note: await notes.create(path, fillDate(cfg.template, d)) };
  } catch (err) {
    // Someone else created it meanwhile: open theirs.
    if (isDomainError(err) && err.code === 'NOTE_ALREADY_EXISTS') {
      return { date, path, created: false, note: await notes.get(path) };
    }
    throw err;
  }
}

/** The built-in `daily-notes` plugin. */
export const dailyNotes = definePlugin({
  id: 'daily-notes',
  name: 'Daily notes',
  version: '1.0.0',
  description:
    "Today's note from a folder pattern and a template; an agent tool that opens (and creates) it.",
  capabilities: ['tools', 'routes', 'notes:read', 'notes:write'],
  configSchema: Config,
  activate({ config, notes, clock }) {
    const today = (create: boolean) => openToday(notes, config, clock.now(), create);
    return {
      tools: [
        {
          name: 'open_todays_note',
          description:
            "Opens today's daily note (creating it from the template when missing): path and text.",
          input: v.object({}),
          write: true,
          async run() {
            const t = await today(true);
            if (!t.note) throw new DomainError('NOTE_NOT_FOUND', `No note at "${t.path}".`);
            const { path, title, content } = t.note;
            return {
              output: { date: t.date, path, title, created: t.created, content: content.slice(0, 12_000) },
              action: {
                type: 'open_todays_note',
                summary: `${t.created ? 'Created' : 'Opened'} today's note "${title}".`,
                path,
              },
              related: [{ path, title }],
            };
          },
        },
      ],
      routes: [
        {
          method: 'GET',
          path: '/today',
          description: "Today's date and note path, and whether the note exists.",
          input: v.object({}),
          async run() {
            const t = await today(false);
            return { date: t.date, path: t.path, exists: t.note !== null };
          },
        },
        {
          method: 'POST',
          path: '/today',
          description: "Opens today's note, creating it from the template when missing.",
          input: v.object({}),
          async run() {
            const t = await today(true);
            return { date: t.date, path: t.path, created: t.created, note: t.note };
          },
        },
      ],
    };
  },
});
