/** `npm run bench`: every bench in turn, each printing its own numbers. */
import { benchCgpTest } from './cgp-test';
import { benchColdStart } from './cold-start';
import { benchCompliance } from './compliance';
import { nativeThroughput } from './cue-native-throughput';
import { benchRegex } from './cue-regex';
import { cueThroughput } from './cue-throughput';
import { benchEntityList } from './entity-list';
import { benchEvaluateApi } from './evaluate-api';
import { benchEvidencePack } from './evidence-pack';
import { benchGateHotPath } from './gate-hot-path';
import { benchImpact } from './impact';
import { benchPublishEvaluation } from './publish-evaluation';
import { benchReportRead } from './report-read';
import { benchRetrieval } from './retrieval';
import { benchTracing } from './tracing-cost';

// The engine bench first, so that its memory figures are not those of a process that already ran the other.
console.log('# CUE engine (WebAssembly workers, default cue-config)');
const wasm = await cueThroughput();
console.log('# CUE engine (native evaluator, same work)');
await nativeThroughput(wasm);
console.log('# Regular expressions in CUE policies (RE2): a regex-heavy policy native vs WebAssembly, a catastrophic pattern natively');
await benchRegex();
console.log('# Evaluate API over HTTP (serverless offline, embedded PostgreSQL), WebAssembly then native');
await benchEvaluateApi();

await benchGateHotPath();
console.log('# What X-Ray tracing costs an Evaluate call (the handler in-process, untraced then as a tracing Lambda), native');
await benchTracing();
console.log('# Cold start of the packaged deploy gate (unzipped as Lambda does, a fresh node each time, first Evaluate call, embedded PostgreSQL), native');
await benchColdStart();
console.log('# Publish-time evaluation through the queue (serverless offline, local queue, embedded PostgreSQL), WebAssembly then native');
await benchPublishEvaluation();
console.log('# Impact of a stricter version over 5,000 resources through the queue (serverless offline, local queue, embedded PostgreSQL), native');
await benchImpact();
console.log('# Reading a report of 100,000 results over HTTP (serverless offline, embedded PostgreSQL)');
await benchReportRead();
console.log('# Grounded chat retrieval over a knowledge index of 5,000 chunks (real[] ranked in the function; pgvector where this machine has it)');
await benchRetrieval();
console.log('# The compliance summary and trend over 1,000,000 results (serverless offline, embedded PostgreSQL)');
await benchCompliance();
console.log('# Pages of the list of 10,000 policies, by name and filtered (serverless offline, embedded PostgreSQL)');
await benchEntityList();
console.log('# `cgp test` on 1,000 descriptor files (the command line, a process of its own, no server)');
await benchCgpTest();
console.log('# An evidence pack of 500,000 verdicts (1,000,000 results) through the API and the queue (serverless offline, embedded PostgreSQL)');
await benchEvidencePack();
