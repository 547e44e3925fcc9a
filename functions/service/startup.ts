import { getSettings } from '#lib/settings/shared-settings';
import { answerCloudFormation, isCloudFormationResourceEvent } from '#lib/startup/cloudformation-resource';
import { runStartupTasks } from '#lib/startup/startup-tasks';

const run = async () => runStartupTasks(await getSettings());

/**
 * The start-up tasks, once per deploy: CloudFormation invokes this as the DatabaseSchema custom resource
 * (serverless.yml) and is told the outcome; invoked by hand (`serverless invoke -f startup`), it
 * answers the report. `npm start` runs the same tasks in-process.
 */
export const handler = async (event: unknown) => {
  if (!isCloudFormationResourceEvent(event)) return run();
  await answerCloudFormation(event, async () => {
    const { tasks, durationMs } = await run();
    return { ...tasks, durationMs: String(durationMs) };
  });
};
