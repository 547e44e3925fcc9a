import { getDatabase } from '#lib/db/client';
import { recordComplianceDays } from '#lib/governance/compliance/compliance-service';

/** Every hour: records the compliance of each past day not recorded yet (the compliance trend). */
export const handler = async () => recordComplianceDays(await getDatabase());
