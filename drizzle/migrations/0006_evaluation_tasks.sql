CREATE TABLE "cgp"."evaluation_tasks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"report_id" uuid NOT NULL,
	"environment" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"offset" integer DEFAULT 0 NOT NULL,
	"resources" integer DEFAULT 0 NOT NULL,
	"expected_resources" integer,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"sent_at" timestamp with time zone,
	"lease_until" timestamp with time zone,
	"resolver_ms" integer DEFAULT 0 NOT NULL,
	"engine_ms" integer DEFAULT 0 NOT NULL,
	"database_ms" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
DROP INDEX "cgp"."evaluation_results_per_report";--> statement-breakpoint
ALTER TABLE "cgp"."evaluation_reports" ALTER COLUMN "environment" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "cgp"."evaluation_tasks" ADD CONSTRAINT "evaluation_tasks_report_id_evaluation_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "cgp"."evaluation_reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "evaluation_tasks_per_environment" ON "cgp"."evaluation_tasks" USING btree ("report_id","environment");--> statement-breakpoint
CREATE INDEX "evaluation_tasks_unfinished" ON "cgp"."evaluation_tasks" USING btree ("updated_at") WHERE status in ('queued', 'running');--> statement-breakpoint
CREATE UNIQUE INDEX "evaluation_results_per_report" ON "cgp"."evaluation_results" USING btree ("report_id","environment","entity_id","entity_version","resource_id");