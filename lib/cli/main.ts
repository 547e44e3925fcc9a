import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

import { packVerdictText } from '#lib/governance/evidence/pack-verification';
import { entityFileMetadata } from '#lib/governance/policies/entity';

import { approvalsText, decideApproval, decisionText, listApprovals } from './approvals-command';
import { auditVerdictText, checkpointsFileText, verifyAudit } from './audit-command';
import { runEvaluate } from './evaluate-command';
import { evidenceExportText, exportEvidence, verifyEvidence } from './evidence-command';
import { exceptionsTable, listExceptions } from './exceptions-command';
import { defaultFormat, type Format, formatRun, FORMATS } from './formats';
import { impactText, runImpact } from './impact-command';
import { serveMcp } from './mcp-command';
import { pullPolicies, pushPolicies } from './policies-command';
import { runTest } from './test-command';
import { UsageError } from './usage-error';

/** Exit codes: everything passed, a result fails, the command could not run as asked. */
const EXIT = { passed: 0, failed: 1, usage: 2 } as const;

const packageVersion = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** Writes to standard output and waits until it is handed over: the launcher ends the process right after. */
const print = (text: string) => new Promise<void>((resolve, reject) => process.stdout.write(text, (error) => (error ? reject(error) : resolve())));

const parseBoolean = (value: string) => {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new InvalidArgumentError('must be true or false');
};

const parseThresholds = (value: string) => {
  const parsed = entityFileMetadata.shape.thresholds.safeParse(parseYaml(value));
  if (!parsed.success) throw new InvalidArgumentError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '));
  return parsed.data;
};

const secondsBetween = (min: number, max: number) => (value: string) => {
  const seconds = Number(value);
  if (!/^\d+$/.test(value) || seconds < min || seconds > max) throw new InvalidArgumentError(`must be a whole number of seconds from ${min} to ${max}`);
  return seconds;
};

const parseInstant = (value: string) => {
  if (!z.iso.datetime({ offset: true }).safeParse(value).success)
    throw new InvalidArgumentError('must be a date and time with its offset, such as 2026-01-31T00:00:00Z');
  return value;
};

const collect = (value: string, previous: string[] = []) => [...previous, value];

const formatOption = () => new Option('-f, --format <format>', 'output format (default: table on a terminal, json otherwise)').choices(FORMATS);

/** --server and --token, for the commands that call a platform. */
const accessOptions = (command: Command) =>
  command
    .option('--server <url>', 'the platform (default: CGP_SERVER, else http://localhost:3000)')
    .option('--token <jwt>', 'a bearer token (default: CGP_TOKEN; else Basic from CGP_USER and CGP_ACCESS_TOKEN)');

function program(): Command {
  const cgp = new Command('cgp')
    .description('The computational governance platform from a terminal: test CUE policies on local descriptors (docs/cli.md)')
    .version(packageVersion)
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');

  cgp
    .command('test')
    .description('evaluate CUE policy files against local descriptor files, with no server; exit 0 all pass, 1 any fails, 2 usage or compile error')
    .argument('<policy>', 'a policy .cue file, or a folder: every .cue file under it')
    .argument('<descriptors...>', 'YAML or JSON descriptor files, folders, or quoted globs ("descriptors/**/*.yaml")')
    .addOption(formatOption())
    .option('--metric', 'the policy files are metrics (their metadata can say kind: metric instead)')
    .addOption(new Option('--severity <severity>', 'severity of a failing result (default: the metadata, else error)').choices(['info', 'warning', 'error']))
    .option('--require-concrete <boolean>', 'true: `cue vet -c` semantics; false: conflicts only (default: the metadata, else true)', parseBoolean)
    .option('--thresholds <yaml>', "metric thresholds as YAML or JSON: '[{label: high, color: red, min: 10}]'", parseThresholds)
    .action(
      async (
        policy: string,
        descriptors: string[],
        options: { format?: Format; metric?: boolean; severity?: 'info' | 'warning' | 'error'; requireConcrete?: boolean; thresholds?: [] },
      ) => {
        const run = await runTest(policy, descriptors, {
          kind: options.metric ? 'metric' : undefined,
          severity: options.severity,
          requireConcrete: options.requireConcrete,
          thresholds: options.thresholds,
        });
        await print(formatRun(run, options.format ?? defaultFormat(), packageVersion));
        process.exitCode = run.passed ? EXIT.passed : EXIT.failed;
      },
    );

  accessOptions(cgp.command('evaluate'))
    .description(
      'the deploy gate: send a descriptor to Evaluate on a running platform, wait for the report, print it; exit 0 passed, 1 not passed, 2 usage or platform error',
    )
    .argument('<descriptor>', 'the YAML or JSON descriptor file')
    .requiredOption('-t, --type <resourceType>', 'the resource type')
    .requiredOption('-e, --env <environment>', 'the environment it is deployed to')
    .addOption(formatOption())
    .option('--id <id>', 'the resource id, for a type without descriptor configuration')
    .option('--label <label>', 'a label of the report (repeat for more)', collect)
    .option('--timeout <seconds>', 'how long to wait for the report', secondsBetween(1, 86_400), 300)
    .option('--wait <seconds>', 'how long Evaluate itself may hold the call (Prefer: wait) before cgp polls the report', secondsBetween(0, 25), 25)
    .action(
      async (
        descriptor: string,
        options: { type: string; env: string; format?: Format; server?: string; token?: string; id?: string; label?: string[]; timeout: number; wait: number },
      ) => {
        const run = await runEvaluate(descriptor, { ...options, labels: options.label });
        await print(formatRun(run, options.format ?? defaultFormat(), packageVersion));
        process.exitCode = run.passed ? EXIT.passed : EXIT.failed;
      },
    );

  accessOptions(cgp.command('mcp'))
    .description('serve the platform to a coding agent as an MCP server over stdio: check descriptors, read policies, ask for exceptions (docs/mcp.md)')
    .action(async (options: { server?: string; token?: string }) => {
      await serveMcp(options, packageVersion);
    });

  const policies = cgp
    .command('policies')
    .description('CUE policies and metrics as files in git: pull them from a platform, push them back, weigh the impact of a version');
  accessOptions(
    policies
      .command('pull')
      .description('write one .cue file per CUE policy and metric of the platform (metadata as front matter) into <dir>')
      .argument('<dir>', 'the folder to write to (created when missing; files of the same name are replaced)')
      .option('-t, --type <resourceType>', 'only the policies and metrics of this resource type'),
  ).action(async (folder: string, options: { server?: string; token?: string; type?: string }) => {
    await print(`${(await pullPolicies(folder, options)).join('\n')}\n`);
  });
  accessOptions(
    policies
      .command('push')
      .description('make the platform hold the policy files of <dir>: prints the plan (create / new version / edit draft / unchanged) and applies it')
      .argument('<dir>', 'the folder of .cue policy files (metadata as front matter or a YAML file beside each)')
      .option('--publish', 'publish what changed, and what is not enabled yet')
      .option('--dry-run', 'print the plan, send nothing'),
  ).action(async (folder: string, options: { server?: string; token?: string; publish?: boolean; dryRun?: boolean }) => {
    await print(`${(await pushPolicies(folder, { ...options, publish: options.publish === true, dryRun: options.dryRun === true })).join('\n')}\n`);
  });

  accessOptions(
    policies
      .command('impact')
      .description(
        'what a version would change before it goes live: each resource judged by it against the live version; exit 1 when any newly fails (a CI check of a policy change)',
      )
      .argument('<id|file>', "the policy's id, or its file (pushed: the platform's newest version holds it)")
      .option('-e, --env <environment>', 'only this environment (repeat for more; default: every one the policy applies to)', collect)
      .option('--version <n>', 'the version to weigh (default: the newest)', (value: string) => {
        if (!/^[1-9]\d*$/.test(value)) throw new InvalidArgumentError('must be a version number (1 or more)');
        return Number(value);
      })
      .option('--timeout <seconds>', 'how long to wait for the report', secondsBetween(1, 86_400), 600)
      .addOption(new Option('-f, --format <format>', 'output format (default: text on a terminal, json otherwise)').choices(['text', 'json'])),
  ).action(async (target: string, options: { server?: string; token?: string; env?: string[]; version?: number; timeout: number; format?: string }) => {
    const run = await runImpact(target, options);
    const format = options.format ?? (defaultFormat() === 'table' ? 'text' : 'json');
    await print(format === 'text' ? impactText(run) : `${JSON.stringify(run, null, 2)}\n`);
    process.exitCode = run.report.counts && run.report.counts.newlyFailing > 0 ? EXIT.failed : EXIT.passed;
  });

  accessOptions(
    cgp
      .command('exceptions')
      .description('list the exceptions of the platform: which policy is waived for which resources, until when, and why')
      .option('--policy <id>', 'only those of this policy or metric')
      .option('--resource <id>', 'only those that apply to this resource id (exactly or by their glob)')
      .option('-e, --env <environment>', 'only those that apply in this environment')
      .addOption(new Option('--active', 'only those not expired').conflicts('expired'))
      .option('--expired', 'only the expired')
      .addOption(new Option('-f, --format <format>', 'output format (default: table on a terminal, json otherwise)').choices(['table', 'json'])),
  ).action(
    async (options: {
      server?: string;
      token?: string;
      policy?: string;
      resource?: string;
      env?: string;
      active?: boolean;
      expired?: boolean;
      format?: string;
    }) => {
      const exceptions = await listExceptions({ ...options, active: options.active ? true : options.expired ? false : undefined });
      const format = options.format ?? defaultFormat();
      await print(format === 'table' ? exceptionsTable(exceptions) : `${JSON.stringify({ data: exceptions }, null, 2)}\n`);
    },
  );

  const approvals = cgp.command('approvals').description('four-eyes: the requests to publish, move or waive that another person decides');
  accessOptions(
    approvals
      .command('list')
      .description('the requests, newest first (pending unless --status says otherwise)')
      .addOption(new Option('--status <status>', 'which requests').choices(['pending', 'approved', 'rejected', 'expired', 'all']).default('pending'))
      .addOption(new Option('--kind <kind>', 'only publish, status, exception or rollout requests').choices(['publish', 'status', 'exception', 'rollout']))
      .addOption(new Option('-f, --format <format>', 'output format (default: text on a terminal, json otherwise)').choices(['text', 'json'])),
  ).action(async (options: { server?: string; token?: string; status?: 'pending'; kind?: 'publish'; format?: string }) => {
    const found = await listApprovals(options);
    const format = options.format ?? (defaultFormat() === 'table' ? 'text' : 'json');
    await print(format === 'text' ? approvalsText(found) : `${JSON.stringify({ data: found }, null, 2)}\n`);
  });
  for (const decision of ['approve', 'reject'] as const) {
    accessOptions(
      approvals
        .command(decision)
        .description(`${decision} the request of another person${decision === 'approve' ? ': the change is applied at once' : ': nothing changes'}`)
        .argument('<id>', 'the request id (cgp approvals list)')
        .option('-m, --comment <text>', 'why, kept with the decision'),
    ).action(async (id: string, options: { server?: string; token?: string; comment?: string }) => {
      await print(decisionText(await decideApproval(id, decision, options)));
    });
  }

  const audit = cgp.command('audit').description("the platform's audit trail: a hash chain of every write call");
  accessOptions(
    audit
      .command('verify')
      .description(
        'read the audit chain, recompute every hash and link, and hold it against the signed checkpoints (no gap, no missing tail, no rewritten stretch); ' +
          'exit 0 all hold, 1 a record or checkpoint does not (printed), 2 usage or platform error',
      )
      .option('--from <date-time>', "only the records recorded from then on (the first one's link is taken as given)", parseInstant)
      .option('--to <date-time>', 'only the records recorded before then', parseInstant)
      .option('--public-key <file>', "the PEM public key the checkpoints must verify with (default: the platform's)")
      .option('--checkpoints <file>', "the checkpoints as kept outside the platform's database, NDJSON or a JSON array (default: the platform's)"),
  ).action(async (options: { server?: string; token?: string; from?: string; to?: string; publicKey?: string; checkpoints?: string }) => {
    const verdict = await verifyAudit({
      ...options,
      publicKey: options.publicKey === undefined ? undefined : await readFile(options.publicKey, 'utf8'),
      checkpoints: options.checkpoints === undefined ? undefined : checkpointsFileText(await readFile(options.checkpoints, 'utf8')),
    });
    await print(auditVerdictText(verdict));
    process.exitCode = verdict.verified ? EXIT.passed : EXIT.failed;
  });

  const evidence = cgp.command('evidence').description('evidence packs for auditors: what was enforced at a past moment, signed (docs/evidence.md)');
  accessOptions(
    evidence
      .command('export')
      .description(
        'ask the platform for an evidence pack, wait until it is built, download it and check its SHA-256; exit 0 written, 2 usage or platform error',
      )
      .requiredOption('--at <date-time>', 'the moment the pack shows, with its offset', parseInstant)
      .option('-e, --env <environment>', 'only this environment (repeat for more; default: every one)', collect)
      .option('-t, --type <resourceType>', 'only this resource type (repeat for more; default: every one)', collect)
      .requiredOption('-o, --out <file>', 'the zip to write')
      .option('--timeout <seconds>', 'how long to wait for the pack to be built', secondsBetween(1, 86_400), 600),
  ).action(async (options: { server?: string; token?: string; at: string; env?: string[]; type?: string[]; out: string; timeout: number }) => {
    const written = await exportEvidence({ ...options, environments: options.env, resourceTypes: options.type });
    await print(evidenceExportText(written));
  });
  accessOptions(
    evidence
      .command('verify')
      .description(
        'verify an evidence pack offline against a key you trust: its signature, every file, its scripts and its audit stretch; ' +
          'exit 0 verified, 1 not (the first thing that does not hold printed), 2 usage',
      )
      .argument('<pack>', 'the zip (cgp evidence export)')
      .option('--public-key <file>', 'the PEM public key you trust (default: the one the platform of --server answers)'),
  ).action(async (pack: string, options: { server?: string; token?: string; publicKey?: string }) => {
    const verdict = await verifyEvidence(pack, {
      ...options,
      publicKey: options.publicKey === undefined ? undefined : await readFile(options.publicKey, 'utf8'),
    });
    await print(packVerdictText(verdict));
    process.exitCode = verdict.verified ? EXIT.passed : EXIT.failed;
  });
  return cgp;
}

/** Runs the command line; the exit code is left on process.exitCode. */
export async function main(argv: readonly string[]): Promise<void> {
  try {
    await program().parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander printed its message (or the help) already; --help and --version are not errors.
      process.exitCode = error.exitCode === 0 ? EXIT.passed : EXIT.usage;
      return;
    }
    if (error instanceof UsageError) {
      process.stderr.write(`cgp: ${error.message}\n`);
      process.exitCode = EXIT.usage;
      return;
    }
    process.stderr.write(`cgp: ${(error as Error).message}\n`);
    process.exitCode = EXIT.usage;
  }
}
