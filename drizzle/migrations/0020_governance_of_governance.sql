CREATE TABLE "cgp"."approvals" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"kind" text NOT NULL,
	"entity_kind" text NOT NULL,
	"entity_id" uuid NOT NULL,
	"entity_name" text NOT NULL,
	"resource_type" text NOT NULL,
	"environment" text,
	"request" jsonb NOT NULL,
	"diff" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"requested_by" text NOT NULL,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"decided_by" text,
	"decided_at" timestamp with time zone,
	"comment" text,
	"outcome" jsonb
);
--> statement-breakpoint
CREATE TABLE "cgp"."audit_records" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"recorded_at" timestamp with time zone DEFAULT now() NOT NULL,
	"record" jsonb NOT NULL,
	"previous_hash" text NOT NULL,
	"hash" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cgp"."role_bindings" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"subjects" text[] DEFAULT '{}' NOT NULL,
	"groups" text[] DEFAULT '{}' NOT NULL,
	"roles" text[] NOT NULL,
	"resource_types" text[],
	"environments" text[],
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "cgp"."governance_exceptions" ADD COLUMN "approved_by" text;--> statement-breakpoint
CREATE INDEX "approvals_by_status" ON "cgp"."approvals" USING btree ("status","requested_at");