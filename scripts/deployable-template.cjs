'use strict';
/**
 * A local Serverless plugin (serverless.yml): makes the template the framework writes one that AWS
 * accepts as it is and that cfn-lint passes without a warning (moto's and a careful team's validation
 * refuse any finding; tests/e2e/deployable.test.ts runs cfn-lint on it):
 *
 * - the HTTP API routes lose the `DependsOn` on their integration that their Target's `Ref` already
 *   implies (W3005);
 * - the functions' role gets no fixed name: `<service>-<stage>-<region>-lambdaRole` passes IAM's 64
 *   characters for a long stage and region; CloudFormation names it after the stack instead;
 * - the DatabaseSchema custom resource (the start-up tasks, migrations included) is given the hash of
 *   the startup function's package, so that CloudFormation runs it again on every deploy that changes
 *   it, and every other function waits for it: new code serves only once its schema is in place.
 */

const SCHEMA_RESOURCE = 'DatabaseSchema';
const STARTUP_FUNCTION = 'StartupLambdaFunction';

class DeployableTemplate {
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = { 'after:aws:package:finalize:mergeCustomProviderResources': () => this.adjust() };
  }

  adjust() {
    const resources = this.serverless.service.provider.compiledCloudFormationTemplate.Resources;
    for (const resource of Object.values(resources)) {
      if (resource.Type === 'AWS::ApiGatewayV2::Route') dropImpliedDependencies(resource);
      if (resource.Type === 'AWS::IAM::Role') delete resource.Properties.RoleName;
    }
    const schema = resources[SCHEMA_RESOURCE];
    if (!schema) return;
    const startupVersion = Object.values(resources).find(
      (resource) => resource.Type === 'AWS::Lambda::Version' && resource.Properties.FunctionName?.Ref === STARTUP_FUNCTION,
    );
    if (!startupVersion) throw new Error(`deployable-template: ${SCHEMA_RESOURCE} needs the version of ${STARTUP_FUNCTION} (provider.versionFunctions)`);
    schema.Properties.StartupCodeSha256 = startupVersion.Properties.CodeSha256;
    for (const [key, resource] of Object.entries(resources)) {
      if (resource.Type !== 'AWS::Lambda::Function' || key === STARTUP_FUNCTION) continue;
      resource.DependsOn = [...[resource.DependsOn ?? []].flat(), SCHEMA_RESOURCE];
    }
  }
}

/** The names a resource's properties already reach by Ref or GetAtt. */
function referencedIn(value, found = new Set()) {
  if (Array.isArray(value)) value.forEach((item) => referencedIn(item, found));
  else if (value && typeof value === 'object') {
    if (typeof value.Ref === 'string') found.add(value.Ref);
    if (Array.isArray(value['Fn::GetAtt'])) found.add(value['Fn::GetAtt'][0]);
    Object.values(value).forEach((item) => referencedIn(item, found));
  }
  return found;
}

function dropImpliedDependencies(resource) {
  if (resource.DependsOn === undefined) return;
  const implied = referencedIn(resource.Properties);
  const kept = [resource.DependsOn].flat().filter((name) => !implied.has(name));
  if (kept.length === 0) delete resource.DependsOn;
  else resource.DependsOn = kept;
}

module.exports = DeployableTemplate;
