/**
 * The package's own bench: a policy of the kind a governance team writes (a definition, bounds,
 * a regular expression, a comprehension) compiled once, then judged against descriptors that pass
 * and descriptors that fail, in this process. Prints compiles per second and judgements per second;
 * nothing is asserted. `npm -w @cgp/cue run bench` (the platform's benches, `npm run bench`, measure
 * it inside the engine and against the reference evaluator).
 */
import { compileNative, evaluateNative } from '@cgp/cue';

const POLICY = `
import "strings"

#Port: { name: string & =~"^[a-z][a-z0-9-]*$", version: int & >=1 }
owner: string & strings.MinRunes(3)
domain: "sales" | "finance" | "marketing"
outputPorts: [...#Port] & [_, ...]
tags: [...string]
_unique: { for t in tags { (t): true } }
`;

const descriptor = (i: number) => ({
  owner: i % 4 === 0 ? 'al' : `owner-${i}`,
  domain: i % 5 === 0 ? 'legal' : 'sales',
  outputPorts: [{ name: `port-${i}`, version: 1 + (i % 3) }],
  tags: [`t${i % 7}`, `t${i % 11}`],
});

function perSecond(rounds: number, work: (round: number) => void): number {
  const started = performance.now();
  for (let round = 0; round < rounds; round++) work(round);
  return rounds / ((performance.now() - started) / 1000);
}

const compiled = compileNative(POLICY);
if (!compiled.ok) throw new Error(`the bench policy does not compile: ${JSON.stringify(compiled)}`);
const options = { requireConcrete: true, metric: false };
// Warmed first: the engine's hot paths compiled by V8, as in a process that has judged before.
perSecond(2_000, (i) => evaluateNative(compiled.program, descriptor(i), options));

const compiles = perSecond(500, () => compileNative(POLICY));
let violated = 0;
const judgements = perSecond(20_000, (i) => {
  if (evaluateNative(compiled.program, descriptor(i), options).kind === 'violated') violated++;
});
console.log(`@cgp/cue: compile ${compiles.toFixed(0)}/s; evaluate ${judgements.toFixed(0)} descriptors/s (${violated} of 20000 violated)`);
