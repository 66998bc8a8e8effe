import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inScope, inWriteScope } from '../../core/auth/scope.ts';
import { createPeopleService, type PeopleService } from '../../core/people/service.ts';
import type { StateStore } from '../../core/ports.ts';

/** A fresh state store for one case; `reopen` gives a second one over the same backing. */
export interface PeopleFixture {
  state: StateStore;
  reopen?: () => Promise<StateStore>;
  cleanup(): Promise<void>;
}

// Cheap scrypt for tests: the cost is a setting, the scheme is what is tested.
const FAST = { N: 2 ** 4, r: 1, p: 1 };

/** The people service's guarantees over one StateStore adapter. */
export function runPeopleContract(name: string, create: () => Promise<PeopleFixture>) {
  describe(`people over ${name}`, () => {
    let fx: PeopleFixture;
    let t = Date.parse('2026-12-07T00:00:00Z');
    const make = async (state: StateStore) => {
      const s = createPeopleService({ state, clock: { now: () => t }, scrypt: FAST });
      await s.init();
      return s;
    };
    let people: PeopleService;
    beforeEach(async () => {
      fx = await create();
      people = await make(fx.state);
    });
    afterEach(() => fx.cleanup());

    it('adds a person, refuses a second of the same name, and lists them without secrets', async () => {
      const ann = await people.add({ name: 'Ann' });
      expect(ann).toMatchObject({ name: 'Ann', role: 'member', disabled: false, shares: [] });
      await expect(people.add({ name: 'ann' })).rejects.toMatchObject({ code: 'CONFLICT' });
      await expect(people.add({ name: '' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
      expect(people.list().map((p) => p.name)).toEqual(['Ann']);
      expect(JSON.stringify(people.list())).not.toMatch(/scrypt|hash/);
    });

    it('computes the scope from the shares: reads in every shared folder, writes where editor', async () => {
      const ann = await people.add({ name: 'Ann' });
      expect(inScope(people.scopeOf(ann.id), 'Any/x.md')).toBe(false); // no share: nothing
      await people.share(ann.id, { folder: 'Team', role: 'viewer' }, 'owner');
      await people.share(ann.id, { folder: 'Team/Drafts/', role: 'editor' }, 'owner');
      const s = people.scopeOf(ann.id);
      expect(inScope(s, 'Team/a.md')).toBe(true);
      expect(inScope(s, 'Private/a.md')).toBe(false);
      expect(inWriteScope(s, 'Team/a.md')).toBe(false);
      expect(inWriteScope(s, 'Team/Drafts/a.md')).toBe(true);
      expect(people.manages(ann.id, 'Team/')).toBe(false);
      await people.share(ann.id, { folder: '', role: 'manager' }, 'owner');
      expect(people.scopeOf(ann.id)?.folders).toBeUndefined();
      expect(people.manages(ann.id, 'Team/')).toBe(true);
      await expect(people.share(ann.id, { folder: '../x', role: 'viewer' }, 'owner')).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
      });
    });

    it('an invite enrols a password once, then signs in; a wrong one locks after five', async () => {
      const ann = await people.add({ name: 'Ann' });
      const inv = await people.invite(ann.id);
      expect((await people.inviteFor(inv.token)).name).toBe('Ann');
      const s = await people.enrolPassword(inv.token, 'correct horse battery');
      expect((await people.session(s.token))?.person.id).toBe(ann.id);
      await expect(people.enrolPassword(inv.token, 'another password')).rejects.toMatchObject({
        code: 'INVALID_TOKEN',
      });
      await expect(people.signInPassword('Ann', 'wrong password!')).rejects.toMatchObject({
        code: 'UNAUTHORIZED',
      });
      expect((await people.signInPassword('ann', 'correct horse battery')).person.name).toBe('Ann');
      for (let i = 0; i < 5; i++) await people.signInPassword('Ann', 'wrong password!').catch(() => {});
      await expect(people.signInPassword('Ann', 'correct horse battery')).rejects.toMatchObject({
        code: 'RATE_LIMITED',
      });
      t += 16 * 60_000;
      expect((await people.signInPassword('Ann', 'correct horse battery')).person.name).toBe('Ann');
    });

    it('an invite expires', async () => {
      const ann = await people.add({ name: 'Ann' });
      const inv = await people.invite(ann.id);
      t += 8 * 86_400_000;
      await expect(people.inviteFor(inv.token)).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
    });

    it('disabling or removing a person ends their sessions and keys at once', async () => {
      const ann = await people.add({ name: 'Ann' });
      await people.share(ann.id, { folder: 'Team', role: 'editor' }, 'owner');
      const s = await people.enrolPassword((await people.invite(ann.id)).token, 'correct horse battery');
      const key = await people.mintKey(ann.id, 'laptop');
      expect(await people.personKey(key.apiKey)).toMatchObject({ personId: ann.id });
      await people.setDisabled(ann.id, true);
      expect(await people.session(s.token)).toBeNull();
      expect(await people.personKey(key.apiKey)).toBeNull();
      await people.setDisabled(ann.id, false);
      expect(await people.session(s.token)).toBeNull(); // ended, not paused
      await people.remove(ann.id);
      expect(people.list()).toEqual([]);
    });

    it("a person's key never exceeds their shares, and stops when the shares shrink below it", async () => {
      const ann = await people.add({ name: 'Ann' });
      const share = await people.share(ann.id, { folder: 'Team', role: 'editor' }, 'owner');
      await expect(
        people.mintKey(ann.id, 'all', { capabilities: ['notes:read'], folders: ['Private/'] }),
      ).rejects.toMatchObject({ code: 'FORBIDDEN' });
      await expect(people.mintKey(ann.id, 'admin', { capabilities: ['admin'] })).rejects.toMatchObject({
        code: 'FORBIDDEN',
      });
      const scoped = await people.mintKey(ann.id, 'ro', { capabilities: ['notes:read'], folders: ['Team/'] });
      const follows = await people.mintKey(ann.id, 'follows');
      await people.unshare(ann.id, share.id);
      expect(await people.personKey(scoped.apiKey)).toBeNull();
      const f = await people.personKey(follows.apiKey);
      expect(inScope(f?.scope, 'Team/a.md')).toBe(false);
    });

    it('what was saved is there after a restart', async () => {
      if (!fx.reopen) return;
      const ann = await people.add({ name: 'Ann' });
      await people.share(ann.id, { folder: 'Team', role: 'viewer' }, 'owner');
      const s = await people.enrolPassword((await people.invite(ann.id)).token, 'correct horse battery');
      const again = await make(await fx.reopen());
      expect(again.get(ann.id).shares).toEqual([
        expect.objectContaining({ folder: 'Team/', role: 'viewer' }),
      ]);
      expect((await again.session(s.token))?.person.name).toBe('Ann');
    });
  });
}
