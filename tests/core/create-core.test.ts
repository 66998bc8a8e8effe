import { describe, expect, it } from 'vitest';
import { memoryNoteStore } from '../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../adapters/store/memory-state-store.ts';
import { localProvider } from '../../core/agent/local-provider.ts';
import { createCore } from '../../core/create-core.ts';
import { loadConfig } from '../../deploy/shared/config/index.ts';
import { silentLogger } from '../helpers/logger.ts';

describe('createCore with a server configuration builds the whole domain', () => {
  it('notes, auth, plugins, channels, the audit, and one agent that carries the plugin tools', async () => {
    const settings = loadConfig({
      DATA_DIR: '/nonexistent-quire-test',
      RELAY_URL: 'https://relay.example.com',
    });
    let providers = 0;
    let senders = 0;
    const core = createCore({
      store: memoryNoteStore({ files: { 'a.md': '# A' } }),
      state: memoryStateStore(),
      clock: { now: () => Date.now() },
      logger: silentLogger,
      settings,
      version: '1.2.3',
      providerFor: () => {
        providers++;
        return localProvider();
      },
      sendersFor: () => {
        senders++;
        return {};
      },
    });
    await core.init();
    await core.load();
    // Only adapters came from outside, each made once: one agent, one set of senders.
    expect([providers, senders]).toEqual([1, 1]);
    expect(core.notes.list().items.map((n) => n.path)).toEqual(['a.md']);
    expect(core.auth.serverId).toMatch(/^[a-z0-9]+$/);
    expect(core.agent.tools().map((t) => t.name)).not.toContain('open_todays_note');
    await core.plugins.install({ id: 'daily-notes', enabled: true });
    // The agent the channels and the HTTP app use is this one, and it sees the plugin's tool.
    expect(core.agent.tools().map((t) => t.name)).toContain('open_todays_note');
    // The audit reads its facts from the features: configuration, plugins, channels.
    const config = await core.security.config();
    expect(config.pairing.relayUrl).toBe('https://relay.example.com');
    expect(core.channels.list()).toEqual([]);
    await core.plugins.stop();
  });

  it('without settings it stays the embeddable core of notes and the offline agent', async () => {
    const core = createCore({
      store: memoryNoteStore({ files: { 'b.md': '# B' } }),
      clock: { now: Date.now },
    });
    await core.load();
    expect(Object.keys(core).sort()).toEqual(['agent', 'flush', 'history', 'load', 'notes', 'retrieval']);
    expect(core.history).toBeNull(); // no history store given: deletes are for good
    expect((await core.agent.status()).provider).toBe('local');
  });
});
