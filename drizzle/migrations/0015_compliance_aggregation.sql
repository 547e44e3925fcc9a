CREATE TABLE "cgp"."compliance_days" (
	"day" date NOT NULL,
	"environment" text NOT NULL,
	"resource_type" text NOT NULL,
	"ok" integer NOT NULL,
	"info" integer NOT NULL,
	"warning" integer NOT NULL,
	"error" integer NOT NULL,
	"failed" integer NOT NULL,
	CONSTRAINT "compliance_days_day_environment_resource_type_pk" PRIMARY KEY("day","environment","resource_type")
);
--> statement-breakpoint
CREATE TABLE "cgp"."compliance_snapshot_days" (
	"day" date PRIMARY KEY NOT NULL,
	"taken_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cgp"."latest_results" (
	"entity_id" uuid NOT NULL,
	"resource_id" text NOT NULL,
	"environment" text NOT NULL,
	"resource_type" text NOT NULL,
	"outcome" text NOT NULL,
	"result_id" bigint NOT NULL,
	CONSTRAINT "latest_results_entity_id_resource_id_environment_pk" PRIMARY KEY("entity_id","resource_id","environment")
);
--> statement-breakpoint
DROP INDEX "cgp"."evaluation_results_latest";--> statement-breakpoint
ALTER TABLE "cgp"."compliance_days" ADD CONSTRAINT "compliance_days_day_compliance_snapshot_days_day_fk" FOREIGN KEY ("day") REFERENCES "cgp"."compliance_snapshot_days"("day") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "evaluation_results_latest" ON "cgp"."evaluation_results" USING btree ("entity_id","resource_id","environment","id" DESC NULLS LAST,"created_at","outcome","resource_type") WHERE recorded;--> statement-breakpoint
INSERT INTO "cgp"."latest_results" ("entity_id", "resource_id", "environment", "resource_type", "outcome", "result_id")
SELECT DISTINCT ON ("entity_id", "resource_id", "environment") "entity_id", "resource_id", "environment", "resource_type", "outcome", "id"
FROM "cgp"."evaluation_results" WHERE recorded ORDER BY "entity_id", "resource_id", "environment", "id" DESC;
