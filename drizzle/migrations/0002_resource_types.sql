CREATE TABLE "cgp"."resource_types" (
	"name" text PRIMARY KEY NOT NULL,
	"display_name" text NOT NULL,
	"resource_name_field" text,
	"resource_display_name_fields" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"resource_filter_field" text,
	"batch_size" integer,
	"resolver_url" text NOT NULL,
	"resolver_path" text NOT NULL,
	"source" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_by" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_by" text NOT NULL
);
