/** `npm run bench`: every bench in turn, each printing its own numbers. */
import { cueThroughput } from './cue-throughput';
import { benchEvaluateApi } from './evaluate-api';

console.log('# Evaluate API over HTTP (serverless offline, embedded PostgreSQL)');
await benchEvaluateApi();
console.log('# CUE engine (WebAssembly workers, default cue-config)');
await cueThroughput();
