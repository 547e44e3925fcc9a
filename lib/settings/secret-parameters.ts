import type { Parameter } from '@aws-sdk/client-ssm';

import { tracedAwsClient } from '#lib/observability/tracing';

/**
 * The environment variables application.conf reads secrets from (`${?VAR}`), and DATABASE_URL. Each may
 * instead be given by name: `<VAR>_SSM` names an SSM Parameter Store parameter (a SecureString), or a
 * Secrets Manager secret as `/aws/reference/secretsmanager/<secret name>`, read once when the settings
 * are loaded (a Lambda container's cold start). The deployment's template then holds names, never values.
 */
export const SECRET_VARIABLES = [
  'DATABASE_URL',
  'DATABASE_PASSWORD',
  'PLATFORM_HTTP_SECRET',
  'NOTIFICATION_SECRET',
  'AUTH_BACKEND_SECRETS',
  'ASSISTANT_ENCRYPTION_KEY',
  'ASSISTANT_PREVIOUS_ENCRYPTION_KEYS',
  'AUDIT_SIGNING_KEY',
] as const;

/** The suffix of the variable that names a secret's parameter instead of holding it. */
const BY_NAME = '_SSM';

/** What was read: each secret's value by its variable, or the problems, which name variables and parameters, never values. */
interface SecretParameters {
  readonly values: ReadonlyMap<string, string>;
  readonly problems: string[];
}

/**
 * Reads the parameters named by the `<VAR>_SSM` variables of `env`, decrypted, in one GetParameters call
 * (the Lambda's own credentials and region; AWS_ENDPOINT_URL_SSM for another endpoint). Nothing is
 * asked of AWS when no such variable is set, as under npm start and in tests.
 */
export async function readSecretParameters(env: NodeJS.ProcessEnv): Promise<SecretParameters> {
  const wanted = SECRET_VARIABLES.flatMap((variable) => {
    const name = env[`${variable}${BY_NAME}`]?.trim();
    return name ? [{ variable, name }] : [];
  });
  if (wanted.length === 0) return { values: new Map(), problems: [] };
  const twice = wanted.filter(({ variable }) => env[variable]);
  if (twice.length > 0) {
    return {
      values: new Map(),
      problems: twice.map(({ variable }) => `${variable} and ${variable}${BY_NAME} are both set: give the secret one way only`),
    };
  }

  const { GetParametersCommand, SSMClient } = await import('@aws-sdk/client-ssm');
  // Traced by operation only: X-Ray records no parameter of SSM's calls, and no answer.
  const client = tracedAwsClient(
    new SSMClient({
      region: env.AWS_REGION || undefined,
      endpoint: env.AWS_ENDPOINT_URL_SSM || undefined,
      maxAttempts: 3,
      requestHandler: { connectionTimeout: 5_000, requestTimeout: 5_000, throwOnRequestTimeout: true },
    }),
  );
  // One call for all of them (GetParameters takes up to ten names; there are fewer secrets): many cold
  // starts at once stay within the account's SSM throughput.
  const names = [...new Set(wanted.map(({ name }) => name))];
  let parameters: Parameter[];
  try {
    parameters = (await client.send(new GetParametersCommand({ Names: names, WithDecryption: true }))).Parameters ?? [];
  } catch (error) {
    const { name, message } = error as Error;
    const variables = wanted.map(({ variable }) => `${variable}${BY_NAME}`).join(', ');
    return {
      values: new Map(),
      problems: [`${variables}: could not read ${names.map((item) => JSON.stringify(item)).join(', ')} from SSM Parameter Store (${name}: ${message})`],
    };
  } finally {
    client.destroy();
  }
  const values = new Map<string, string>();
  const problems: string[] = [];
  for (const { variable, name } of wanted) {
    const value = parameters.find((parameter) => isNamed(parameter, name))?.Value;
    if (value) values.set(variable, value);
    else problems.push(`${variable}${BY_NAME}: SSM Parameter Store has no parameter ${JSON.stringify(name)} (or this function may not read it)`);
  }
  return { values, problems };
}

/** Whether an answered parameter is the one asked for by `requested`: its name or ARN, with the version or label selector asked for. */
function isNamed(parameter: Parameter, requested: string): boolean {
  return [parameter.Name, parameter.ARN].some((id) => id !== undefined && (requested === id || requested === `${id}${parameter.Selector ?? ''}`));
}
