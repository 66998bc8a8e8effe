import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as core from '../../core/index.ts';

const FORBIDDEN: [RegExp, string][] = [
  [/from\s+['"]hono(\/[^'"]*)?['"]/, 'hono'],
  [/from\s+['"]@hono\//, '@hono/*'],
  [/from\s+['"]ioredis['"]/, 'ioredis'],
  [/from\s+['"]node:/, 'node:*'],
  [/from\s+['"](fs|path|os|crypto|http|child_process|stream|url|util)(\/[^'"]*)?['"]/, 'a Node built-in'],
  [/import\(\s*['"]node:/, 'node:* (dynamic)'],
  [/\bprocess\./, 'process'],
  [/\bBuffer\b/, 'Buffer'],
  [/\brequire\(/, 'require'],
];

async function tsFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile() && e.name.endsWith('.ts')) out.push(join(e.parentPath, e.name));
  }
  return out;
}

describe('the core stays framework- and platform-free', () => {
  it('imports no hono, ioredis, node:*, process or Buffer', async () => {
    const files = await tsFiles(new URL('../../core', import.meta.url).pathname);
    expect(files.length).toBeGreaterThan(5);
    const problems: string[] = [];
    for (const f of files) {
      const text = (await readFile(f, 'utf8')).replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      for (const [re, what] of FORBIDDEN) if (re.test(text)) problems.push(`${f}: ${what}`);
    }
    expect(problems).toEqual([]);
  });

  it('pins the public exports of core/index.ts', () => {
    expect(Object.keys(core).sort()).toEqual([
      'CHECKS',
      'ChannelStateError',
      'ChatBody',
      'CreateChannelBody',
      'CreateNoteBody',
      'DomainError',
      'InstallPluginBody',
      'MoveNoteBody',
      'PROVIDERS',
      'PluginConfigBody',
      'REDACTED',
      'ToggleChannelBody',
      'TogglePluginBody',
      'UpdateNoteBody',
      'WebMessageBody',
      'analyzeMarkdown',
      'builtinPlugins',
      'channelView',
      'createAgent',
      'createChannelService',
      'createCore',
      'createLinkGraph',
      'createNoteService',
      'createPluginManager',
      'createSecurityService',
      'dailyNotes',
      'definePlugin',
      'generateWebhookSecret',
      'gradeOf',
      'guardedFetch',
      'ifMatchHolds',
      'isDomainError',
      'isPrivateAddress',
      'localProvider',
      'noteTools',
      'outboundWebhooks',
      'recommendationsOf',
      'runAudit',
      'scoreOf',
      'sha256Hex',
      'signWebhook',
      'splitFrontmatter',
      'unlinkedMentions',
      'validateFolderPath',
      'validateNotePath',
      'webSearch',
      'writesAllowed',
    ]);
  });
});
