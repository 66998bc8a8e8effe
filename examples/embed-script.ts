/** Quire's core in a plain script: no server, no HTTP. Run: node --import tsx examples/embed-script.ts */

import { memoryNoteStore } from 'quire/adapters/store';
import { createCore } from 'quire/core';

const core = createCore({ store: memoryNoteStore(), clock: { now: Date.now } });
await core.load();

await core.notes.create('garden/compost.md', '# Compost\n\nGreens and browns, turned weekly. See [[soil]].');
await core.notes.create('garden/soil.md', '# Soil\n\nLoam. #garden');

const soil = await core.notes.get('garden/soil.md');
console.log('backlinks of soil:', soil.backlinks.map((b) => b.path).join(', '));
console.log('search "compost":', (await core.notes.search('compost')).map((h) => h.path).join(', '));

const answer = await core.agent.chat({ message: 'What do my notes say about compost?' });
console.log('agent:', answer.relatedNotes.map((n) => n.path).join(', '));
