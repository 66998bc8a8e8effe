import './styles.css';
import { profileStore } from './flow/profiles.ts';
import { registerServiceWorker } from './offline-shell.ts';
import { renderLinkPage } from './ui/link-page.ts';
import { applyTheme } from './ui/theme.ts';
import { renderWorkspace } from './ui/workspace.ts';

applyTheme();
registerServiceWorker();
const root = document.getElementById('app')!;
const path = location.pathname.replace(/\/+$/, '') || '/';
if (path === '/link') renderLinkPage(root);
else if (path === '/workspace') renderWorkspace(root);
else location.replace(profileStore(localStorage).active() ? '/workspace' : '/link');
