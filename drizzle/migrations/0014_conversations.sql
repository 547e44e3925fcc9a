CREATE TABLE "cgp"."conversation_turns" (
	"conversation_id" uuid NOT NULL,
	"turn" integer NOT NULL,
	"query" text NOT NULL,
	"answer" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "conversation_turns_conversation_id_turn_pk" PRIMARY KEY("conversation_id","turn")
);
--> statement-breakpoint
CREATE TABLE "cgp"."conversations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"subject" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "cgp"."conversation_turns" ADD CONSTRAINT "conversation_turns_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "cgp"."conversations"("id") ON DELETE cascade ON UPDATE no action;