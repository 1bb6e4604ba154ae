// Loaded with `--import` before the service: every module URL the process resolves is written to
// stderr as `module-recorder: <url>`, for tests that check what a process loads.
import { register } from 'node:module';
import process from 'node:process';
import { MessageChannel } from 'node:worker_threads';

const { port1, port2 } = new MessageChannel();
port1.on('message', (url) => process.stderr.write(`module-recorder: ${String(url)}\n`));
port1.unref();
register('./hooks.mjs', import.meta.url, { data: { port: port2 }, transferList: [port2] });
