import './styles.css';
import { profileStore } from './flow/profiles.ts';
import { registerServiceWorker } from './offline-shell.ts';
import { renderLinkPage } from './ui/link-page.ts';
import { renderInvite, renderPeople, renderSignIn } from './ui/people-page.ts';
import { applyTheme } from './ui/theme.ts';
import { renderWorkspace } from './ui/workspace.ts';

applyTheme();
registerServiceWorker();
const root = document.getElementById('app')!;
const path = location.pathname.replace(/\/+$/, '') || '/';
if (path === '/link') renderLinkPage(root);
else if (path === '/workspace') renderWorkspace(root);
else if (path === '/sign-in') void renderSignIn(root);
else if (path === '/invite') void renderInvite(root);
else if (path === '/people') void renderPeople(root);
else location.replace(profileStore(localStorage).active() ? '/workspace' : '/link');
