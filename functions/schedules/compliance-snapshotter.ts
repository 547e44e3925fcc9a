import { recordComplianceDays } from '#lib/governance/compliance/compliance-service';
import { governance } from '#lib/governance/composition';

/** Every hour: records the compliance of each past day not recorded yet (the compliance trend). */
export const handler = async () => recordComplianceDays((await governance()).database);
