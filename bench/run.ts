/** `npm run bench`: every bench in turn, each printing its own numbers. */
import { cueThroughput } from './cue-throughput';

console.log('# CUE engine (WebAssembly workers, default cue-config)');
await cueThroughput();
