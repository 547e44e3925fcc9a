DROP INDEX "cgp"."governance_entities_list";--> statement-breakpoint
CREATE INDEX "governance_entities_list" ON "cgp"."governance_entities" USING btree ("kind",lower("name"),"name","id") WHERE latest;