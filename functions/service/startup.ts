import { getSettings } from '#lib/settings/shared-settings';
import { runStartupTasks } from '#lib/startup/startup-tasks';

/** Invoked once after each deploy (see docs/deployment.md); `npm start` runs the same tasks in-process. */
export const handler = async () => runStartupTasks(await getSettings());
