// A worker thread does not inherit the TypeScript loader of the thread that started it (Node 20): register it here,
// then load the worker itself.
import { register } from 'tsx/esm/api';

register();
await import('./fold-worker.ts');
