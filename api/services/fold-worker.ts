import { parentPort, workerData } from 'node:worker_threads';
import { openStore, type StoreConfig } from '../../db/store.ts';
import { Folder } from './fold.ts';

/** The fold thread's side (api/services/fold-thread.ts): a Folder on a store connection of its own. */
const { store: config, inlineReplayMax } = workerData as { store: StoreConfig; inlineReplayMax: number };
const port = parentPort;
if (port === null) throw new Error('fold-worker.ts runs as a worker thread');
const store = await openStore(config);
const folder = new Folder(store, {
  inlineReplayMax,
  log: (log) => port.postMessage({ log }),
  onFold: (seconds) => port.postMessage({ fold: seconds }),
});

port.on('message', async (message: { op: 'kick' | 'settle' | 'stop'; id?: number }) => {
  if (message.op === 'kick') return folder.kick();
  if (message.op === 'settle') await folder.settled();
  else {
    await folder.stop();
    await store.close();
  }
  port.postMessage({ done: message.id });
});
