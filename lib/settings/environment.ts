/**
 * The process environment, read in this one place. Everything configurable lives in
 * application.conf; these are only the few values that must be known before or beside it.
 */
export interface RuntimeEnvironment {
  /** Minimum log level (LOG_LEVEL), default "info". */
  readonly logLevel: string;
  /** Deployment stage (STAGE), "local" under npm start and in tests. */
  readonly stage: string;
  /**
   * Folder holding config/, drizzle/ and .data/: the Lambda task root when deployed, else the
   * working directory (serverless-offline sets LAMBDA_TASK_ROOT to a fake /var/task). The `cgp`
   * command runs from any folder: its launcher names the package's own in CGP_PACKAGE_ROOT.
   */
  readonly root: string;
  /** True inside AWS Lambda; false under npm start, serverless-offline and tests. */
  readonly deployed: boolean;
  /** True under serverless offline (IS_OFFLINE): the evaluation queue is then the local Lambda endpoint. */
  readonly offline: boolean;
  /**
   * Whether X-Ray traces are sent (lib/observability/tracing.ts): inside AWS Lambda
   * (AWS_EXECUTION_ENV), unless Powertools' own POWERTOOLS_TRACE_ENABLED=false says not; never under
   * serverless offline, which has no X-Ray daemon.
   */
  readonly traced: boolean;
  /** Whether AWS is reached at another endpoint (AWS_ENDPOINT_URL or AWS_ENDPOINT_URL_S3: an emulator such as moto), where S3 is addressed by path. */
  readonly awsEndpointOverridden: boolean;
}

export function runtimeEnvironment(env: NodeJS.ProcessEnv = process.env): RuntimeEnvironment {
  return {
    logLevel: env.LOG_LEVEL || 'info',
    stage: env.STAGE || 'local',
    root: (!env.IS_OFFLINE && env.LAMBDA_TASK_ROOT) || env.CGP_PACKAGE_ROOT || process.cwd(),
    deployed: Boolean(env.AWS_LAMBDA_FUNCTION_NAME) && !env.IS_OFFLINE,
    offline: Boolean(env.IS_OFFLINE),
    traced: Boolean(env.AWS_EXECUTION_ENV) && !env.IS_OFFLINE && env.POWERTOOLS_TRACE_ENABLED?.toLowerCase() !== 'false',
    awsEndpointOverridden: Boolean(env.AWS_ENDPOINT_URL || env.AWS_ENDPOINT_URL_S3),
  };
}

/** What the `cgp` command reads of its environment: where the platform is and how to sign in. */
export interface CliEnvironment {
  /** CGP_SERVER: the platform's URL when --server is not given. */
  readonly server?: string;
  /** CGP_TOKEN: a bearer token when --token is not given. */
  readonly token?: string;
  /** CGP_USER and CGP_ACCESS_TOKEN: Basic credentials, used without a token. */
  readonly user?: string;
  readonly accessToken?: string;
}

export function cliEnvironment(env: NodeJS.ProcessEnv = process.env): CliEnvironment {
  return { server: env.CGP_SERVER, token: env.CGP_TOKEN, user: env.CGP_USER, accessToken: env.CGP_ACCESS_TOKEN };
}
