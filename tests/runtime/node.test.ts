import { runRuntimeContract } from './contract.ts';
import { startNode } from './runtimes.ts';

runRuntimeContract('Node (@hono/node-server)', () => startNode());
