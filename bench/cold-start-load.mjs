// One cold start of bench/cold-start.ts, in a fresh plain `node` (no tsx: what Lambda runs):
// `node bench/cold-start-load.mjs <handler file> <event JSON>`. Imports the packaged handler as
// Lambda's runtime does (a dynamic import of the file), calls it once with the event, and prints
// one line, MARK and JSON: the import's and the call's milliseconds and the answer. The function
// may print its own lines (metrics in the embedded metric format go to stdout), hence the mark.
import { pathToFileURL } from 'node:url';

const MARK = 'cold-start-load ';
const [file, event] = process.argv.slice(2);
const ms = (from, to) => Number(to - from) / 1e6;

// The part of Lambda's context the service reads; the rest stands in for completeness.
const context = {
  awsRequestId: 'cold-start',
  functionName: 'gate',
  functionVersion: '$LATEST',
  memoryLimitInMB: '1024',
  callbackWaitsForEmptyEventLoop: false,
  getRemainingTimeInMillis: () => 29_000,
};

const started = process.hrtime.bigint();
const { handler } = await import(pathToFileURL(file).href);
const imported = process.hrtime.bigint();
const response = await handler(JSON.parse(event), context);
const answered = process.hrtime.bigint();
console.log(
  `${MARK}${JSON.stringify({ importMs: ms(started, imported), callMs: ms(imported, answered), statusCode: response.statusCode, body: response.body })}`,
);
// The database pool would keep the process alive (a Lambda container is frozen instead).
process.exit(0);
