import { runRuntimeContract } from './contract.ts';
import { startWorkerd } from './runtimes.ts';

runRuntimeContract('workerd (Worker + R2 + KV + Durable Object, via Miniflare)', () => startWorkerd());
