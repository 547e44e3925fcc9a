CREATE TABLE "cgp"."evaluation_reports" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"scope" text NOT NULL,
	"cause" text NOT NULL,
	"environment" text NOT NULL,
	"resource_type" text NOT NULL,
	"labels" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"request" jsonb NOT NULL,
	"outcome" text,
	"passed" boolean,
	"total" integer DEFAULT 0 NOT NULL,
	"done" integer DEFAULT 0 NOT NULL,
	"error" text,
	"lease_until" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_by" text NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "cgp"."evaluation_results" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"report_id" uuid,
	"recorded" boolean NOT NULL,
	"entity_id" uuid NOT NULL,
	"entity_version" integer NOT NULL,
	"entity_kind" text NOT NULL,
	"entity_status" text NOT NULL,
	"severity" text NOT NULL,
	"outcome" text NOT NULL,
	"resource_id" text NOT NULL,
	"resource_display_name" text,
	"resource_version" text,
	"environment" text NOT NULL,
	"resource_type" text NOT NULL,
	"result" jsonb NOT NULL,
	"value" double precision,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cgp"."governance_entities" (
	"id" uuid NOT NULL,
	"version" integer NOT NULL,
	"kind" text NOT NULL,
	"latest" boolean NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"resource_type" text NOT NULL,
	"environment" text,
	"severity" text NOT NULL,
	"interaction_type" text,
	"tags" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"engine" text,
	"cue_script" text,
	"require_concrete" boolean DEFAULT true NOT NULL,
	"remote_engine_url" text,
	"trigger" text NOT NULL,
	"timing" text NOT NULL,
	"cron_expression" text,
	"strategy" text NOT NULL,
	"status" text NOT NULL,
	"thresholds" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_by" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_by" text NOT NULL,
	CONSTRAINT "governance_entities_id_version_pk" PRIMARY KEY("id","version")
);
--> statement-breakpoint
CREATE INDEX "evaluation_reports_unfinished" ON "cgp"."evaluation_reports" USING btree ("lease_until") WHERE status in ('pending', 'running');--> statement-breakpoint
CREATE UNIQUE INDEX "evaluation_results_per_report" ON "cgp"."evaluation_results" USING btree ("report_id","entity_id","entity_version","resource_id");--> statement-breakpoint
CREATE INDEX "evaluation_results_latest" ON "cgp"."evaluation_results" USING btree ("entity_id","resource_id","environment","id" DESC NULLS LAST) WHERE recorded;--> statement-breakpoint
CREATE INDEX "evaluation_results_resource" ON "cgp"."evaluation_results" USING btree ("resource_id","id" DESC NULLS LAST) WHERE recorded;--> statement-breakpoint
CREATE UNIQUE INDEX "governance_entities_latest" ON "cgp"."governance_entities" USING btree ("id") WHERE latest;--> statement-breakpoint
CREATE INDEX "governance_entities_active" ON "cgp"."governance_entities" USING btree ("resource_type","status") WHERE status in ('enabled', 'grace');