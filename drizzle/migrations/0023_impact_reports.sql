CREATE TABLE "cgp"."impact_reports" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"entity_kind" text NOT NULL,
	"entity_id" uuid NOT NULL,
	"candidate_version" integer NOT NULL,
	"baseline_version" integer,
	"evaluation_report_id" uuid NOT NULL,
	"environments" jsonb NOT NULL,
	"summary" jsonb,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cgp"."impact_resources" (
	"impact_report_id" uuid NOT NULL,
	"change" text NOT NULL,
	"environment" text NOT NULL,
	"resource_id" text NOT NULL,
	"owner" text,
	"candidate_outcome" text NOT NULL,
	"baseline_outcome" text,
	"errors" jsonb NOT NULL,
	CONSTRAINT "impact_resources_impact_report_id_change_environment_resource_id_pk" PRIMARY KEY("impact_report_id","change","environment","resource_id")
);
--> statement-breakpoint
ALTER TABLE "cgp"."evaluation_results" ADD COLUMN "resource_owner" text;--> statement-breakpoint
ALTER TABLE "cgp"."resource_types" ADD COLUMN "resource_owner_field" text;--> statement-breakpoint
ALTER TABLE "cgp"."impact_resources" ADD CONSTRAINT "impact_resources_impact_report_id_impact_reports_id_fk" FOREIGN KEY ("impact_report_id") REFERENCES "cgp"."impact_reports"("id") ON DELETE cascade ON UPDATE no action;