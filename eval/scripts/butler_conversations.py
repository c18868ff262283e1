#!/usr/bin/env python3
"""Writes examples/data/butler/conversations.json: the Butler evaluation's conversations.

Each turn holds the model's recorded answers in call order (the Butler's classification,
then each specialist's tool calls and final text, then a synthesis when two specialists
ran). Tool results are never recorded: the evaluation computes them with the real tools.

    python3 eval/scripts/butler_conversations.py
"""

import json
import pathlib

OUT = pathlib.Path(__file__).resolve().parents[2] / "examples/data/butler/conversations.json"
_ids = iter(range(1, 10_000))


def decide(intent, reasoning, entities=None, response=None, follow_ups=None, sub_tasks=None):
    c = {"intent": intent, "confidence": 0.9, "reasoning": reasoning}
    if entities:
        c["delegationContext"] = {"relevantEntities": entities}
    d = {"classification": c}
    if response is not None:
        d["response"] = response
    if follow_ups is not None:
        d["followUpQuestions"] = follow_ups
    if sub_tasks is not None:
        d["subTasks"] = sub_tasks
    return {"text": json.dumps(d)}


def call(name, **arguments):
    return {"tool_calls": [{"id": f"call_{next(_ids)}", "name": name, "arguments": arguments}]}


def text(t):
    return {"text": t}


def turn(user, expect, *recorded):
    return {"user": user, "expect": expect, "recorded": list(recorded)}


conversations = []


def conv(cid, kind, *turns):
    conversations.append({"id": cid, "kind": kind, "turns": list(turns)})


# --- search, then drill down into a hit -------------------------------------------------
DRILL = [
    ("draft quarterly report Q4", "Find my draft of the Q4 quarterly report", "task_q4_1", "Draft quarterly report",
     "Open the draft quarterly report"),
    ("billing service design", "Where's the design doc for the billing service?",
     "res_design_doc_billing", "Billing Service Design Doc", "Show me what it says"),
    ("database failover postmortem", "Do I have a postmortem about the database failover?",
     "res_postmortem_db", "Postmortem: Database Failover", "Open it"),
    ("on-call runbook", "Find the on-call runbook", "res_runbook", "On-call Runbook",
     "What are the first steps in it?"),
    ("API rate limit policy", "What's our API rate limit policy note?", "res_note_8",
     "API Rate Limit Policy", "Open the full note"),
    ("Kubernetes upgrade checklist", "Look up the Kubernetes upgrade checklist", "res_note_3",
     "Kubernetes Upgrade Checklist", "Show me the whole checklist"),
    ("Portugal travel guide", "Find my Portugal travel guide", "res_portugal_guide",
     "Portugal Travel Guide", "Open it please"),
    ("backend interview guide", "Search for the backend interview guide", "res_interview_guide",
     "Backend Interview Guide", "Read me the details"),
    ("half marathon training", "What do I have on half marathon training?", "proj_half_marathon",
     "Half Marathon Training", "Open the project"),
    ("cloud cost reduction", "Find the cloud cost reduction project", "proj_cost_cut",
     "Cloud Cost Reduction", "What's in the project note?"),
    ("penetration test report", "Where's the penetration test report?", "res_security_report",
     "Penetration Test Report 2026", "Open the report"),
    ("vector search primer", "Find the vector search primer", "res_vector_search",
     "Vector Search Primer", "Show me the primer"),
]
for i, (query, ask, item, title, follow) in enumerate(DRILL):
    first = turn(ask,
                 {"intent": "delegate_search", "agent": "navigator", "tools": ["search_knowledge"],
                  "sources": [item], "within": 5, "contains": [title]},
                 decide("delegate_search", "Looks for a stored note", [query]),
                 call("search_knowledge", query=query),
                 text(f"I found \"{title}\" [{item}] in your knowledge base."))
    second = turn(follow,
                  {"intent": "delegate_search", "agent": "navigator", "tools": ["get_item"],
                   "sources": [item], "within": 5, "contains": [title]},
                  decide("delegate_search", "Wants the full item found before", [title]),
                  call("get_item", id=item),
                  text(f"Here is \"{title}\" [{item}] in full, summarised."))
    turns = [first, second]
    if i % 3 == 0:
        turns.append(turn("Thanks, that's what I needed.",
                          {"intent": "direct_answer", "contains": ["welcome"]},
                          decide("direct_answer", "Thanks", response="You're welcome, Ada!")))
    conv(f"search-drill-{i + 1:02}", "search_drilldown", *turns)

# Invalid first, corrected after the error result: a wrong type, then an unknown field.
conv("search-drill-invalid-01", "search_drilldown",
     turn("Find the notes on BM25",
          {"intent": "delegate_search", "agent": "navigator", "tools": ["search_knowledge"],
           "sources": ["res_bm25"], "within": 5, "contains": ["BM25 Explained"]},
          decide("delegate_search", "Looks for a note", ["BM25"]),
          call("search_knowledge", query="BM25", limit="five"),
          call("search_knowledge", query="BM25", limit=5),
          text("\"BM25 Explained\" [res_bm25] is the note.")),
     turn("Open it",
          {"intent": "delegate_search", "agent": "navigator", "tools": ["get_item"],
           "sources": ["res_bm25"], "contains": ["BM25"]},
          decide("delegate_search", "Wants the item", ["BM25 Explained"]),
          call("get_item", itemId="res_bm25"),
          call("get_item", id="res_bm25"),
          text("\"BM25 Explained\" [res_bm25]: how BM25 scores term frequency and document length.")))

# --- code: find it, then build the context for a change -----------------------------------
CODE = [
    ("Where is VAT computed for an invoice?", "where VAT tax is computed for an invoice",
     "app/billing/tax.py",
     "Add Spain (ES, 21%) to the VAT rates and cover it with a test",
     "add a VAT rate for Spain ES to VAT_RATES and a test in tests/test_tax.py", "tests/test_tax.py"),
    ("How do we verify API tokens?", "verify API token hash expiry", "app/auth.py",
     "Make tokens expire after 30 days instead of 90",
     "change TOKEN_LIFETIME token expiry from 90 to 30 days in auth", "app/auth.py"),
    ("Which code handles rate limiting?", "rate limiting token bucket per API token",
     "app/rate_limit.py",
     "Raise the rate limit capacity to 120 requests",
     "raise RateLimiter CAPACITY to 120 requests", "app/rate_limit.py"),
    ("Where are overdue payment reminders sent?", "overdue invoice payment reminder emails",
     "app/emails.py",
     "Send a fourth reminder after 60 days",
     "add 60 days to REMINDER_DAYS for overdue_reminder emails", "app/emails.py"),
    ("Where are the database migrations?", "database schema migrations sqlite",
     "app/db.py",
     "Add a migration that adds a business flag to customers",
     "add migration 4 to MIGRATIONS adding business column to customers table", "app/db.py"),
    ("How does an invoice get issued?", "issue_invoice draft invoice due date",
     "app/billing/invoices.py",
     "Change the payment terms from net 30 to net 14",
     "change PAYMENT_TERMS of invoices from 30 to 14 days", "app/billing/invoices.py"),
    ("Which HTTP routes exist for invoices?", "HTTP routes for invoices api",
     "app/api/routes.py",
     "Add a route to mark an invoice paid",
     "add POST /invoices/<id>/paid route calling mark_paid", "app/api/routes.py"),
    ("Where's the reverse charge rule?", "VAT reverse charge for business customers",
     "app/billing/tax.py",
     "Print the reverse charge note on the invoice email",
     "include tax_note reverse charge note in invoice_email", "app/emails.py"),
    ("How is the Authorization header parsed?", "parse Authorization Bearer header token",
     "app/auth.py",
     "Return 401 with a clear message when the bearer token is missing",
     "authenticate returns 401 when bearer_token is missing in routes", "app/api/routes.py"),
]
for i, (ask, goal, path, change, goal2, path2) in enumerate(CODE):
    conv(f"code-{i + 1:02}", "code",
         turn(ask,
              {"intent": "delegate_code", "agent": "coder", "tools": ["build_code_context"],
               "sources": [path], "within": 3, "contains": [path]},
              decide("delegate_code", "Asks where code lives", [goal]),
              call("build_code_context", goal=goal, tokens=2000),
              text(f"It is in {path}; the context above shows the function and its callers.")),
         turn(change,
              {"intent": "delegate_code", "agent": "coder", "tools": ["build_code_context"],
               "sources": [path2], "within": 3, "contains": [path2]},
              decide("delegate_code", "Prepares a change", [goal2]),
              call("build_code_context", goal=goal2, tokens=3000),
              text(f"Start in {path2}; the context lists what else the change touches.")))

conv("code-invalid-01", "code",
     turn("Where do we hash API tokens?",
          {"intent": "delegate_code", "agent": "coder", "tools": ["build_code_context"],
           "sources": ["app/auth.py"], "within": 3, "contains": ["app/auth.py"]},
          decide("delegate_code", "Asks where code lives", ["hash API tokens"]),
          call("build_code_context", goal="hash API tokens sha256", tokens="2000"),
          call("build_code_context", goal="hash API tokens sha256", tokens=2000),
          text("hash_token in app/auth.py stores the SHA-256 of each token.")),
     turn("Prepare the context for switching the hash to HMAC with a server secret",
          {"intent": "delegate_code", "agent": "coder", "tools": ["build_code_context"],
           "sources": ["app/auth.py"], "within": 3, "contains": ["hash_token"]},
          decide("delegate_code", "Prepares a change", ["hash_token HMAC"]),
          call("build_code_context", goal="replace hash_token sha256 with hmac and a server secret"),
          text("Change hash_token in app/auth.py; verify_token and revoke_token call it.")))

# --- tasks: look, then change the workflow state -------------------------------------------
conv("tasks-01", "tasks",
     turn("What should I work on next for the release?",
          {"intent": "delegate_tasks", "agent": "planner", "tools": ["get_next_tasks_from_tree"],
           "contains": ["rel-042"]},
          decide("delegate_tasks", "Asks for the next task", ["release"]),
          call("get_next_tasks_from_tree", limit=3),
          text("Next up: rel-042 (run the test suite for 0.4.2), then rel-041 and rel-043.")),
     turn("The tests passed for rel-042, move it on",
          {"intent": "delegate_tasks", "agent": "planner", "tools": ["advance_task"],
           "taskStatus": {"rel-042": "PENDING"}, "contains": ["changelog"]},
          decide("delegate_tasks", "Reports a step result", ["rel-042"]),
          call("advance_task", taskId="rel-042", result="passed"),
          text("rel-042 moved from the test suite to writing the changelog.")))
conv("tasks-02", "tasks",
     turn("Which release is waiting for review?",
          {"intent": "delegate_tasks", "agent": "planner", "tools": ["get_tasks_by_status"],
           "contains": ["rel-041"]},
          decide("delegate_tasks", "Asks about tasks", ["release review"]),
          call("get_tasks_by_status", status="PENDING"),
          text("rel-041 (0.4.1) is at the release review gate.")),
     turn("The review of rel-041 passed",
          {"intent": "delegate_tasks", "agent": "planner", "tools": ["advance_task"],
           "taskStatus": {"rel-041": "PENDING"}, "contains": ["deploy"]},
          decide("delegate_tasks", "Reports a gate result", ["rel-041"]),
          call("advance_task", taskId="rel-041", result="passed"),
          text("rel-041 passed review and is ready to deploy.")),
     turn("Deployed it, all good",
          {"intent": "delegate_tasks", "agent": "planner", "tools": ["advance_task"],
           "taskStatus": {"rel-041": "COMPLETED"}, "contains": ["completed"]},
          decide("delegate_tasks", "Reports a step result", ["rel-041"]),
          call("advance_task", taskId="rel-041", result="passed", output={"deployedAt": "2026-11-21T10:00:00Z"}),
          text("rel-041 is completed: 0.4.1 is in production.")))
conv("tasks-03", "tasks",
     turn("Create a release task for 0.5.0 with priority 70",
          {"intent": "delegate_tasks", "agent": "planner", "tools": ["load_task_tree"],
           "taskStatus": {"rel-050": "PENDING"}, "contains": ["rel-050"]},
          decide("delegate_tasks", "Creates a task", ["0.5.0"]),
          call("load_task_tree", tasks=[{"id": "rel-050", "issueId": "LED-170", "workflowType": "release",
                                         "currentStep": "freeze", "priority": 70,
                                         "context": {"version": "0.5.0"}}]),
          text("Created rel-050 for 0.5.0 at the freeze step.")),
     turn("Branch is frozen for rel-050",
          {"intent": "delegate_tasks", "agent": "planner", "tools": ["advance_task"],
           "taskStatus": {"rel-050": "PENDING"}, "contains": ["test"]},
          decide("delegate_tasks", "Reports a step result", ["rel-050"]),
          call("advance_task", taskId="rel-050", result="passed"),
          text("rel-050 moved on to running the test suite.")))
conv("tasks-04", "tasks",
     turn("Is anything paused?",
          {"intent": "delegate_tasks", "agent": "planner", "tools": ["get_tasks_by_status"],
           "contains": ["hotfix-007"]},
          decide("delegate_tasks", "Asks about paused tasks", ["paused"]),
          call("get_tasks_by_status", status="PAUSED"),
          text("hotfix-007 (0.4.1-hotfix) is paused at the deploy step.")),
     turn("Resume hotfix-007 at deploy, the incident is over",
          {"intent": "delegate_tasks", "agent": "planner", "tools": ["resume_task"],
           "taskStatus": {"hotfix-007": "PENDING"}, "contains": ["resumed"]},
          decide("delegate_tasks", "Resumes a task", ["hotfix-007"]),
          call("resume_task", taskId="hotfix-007", step="deploy", note="incident over"),
          text("hotfix-007 resumed at deploy and is pending again.")))
conv("tasks-05", "tasks",
     turn("The tests failed for rel-042",
          {"intent": "delegate_tasks", "agent": "planner", "tools": ["advance_task"],
           "taskStatus": {"rel-042": "HITL"}, "contains": ["rel-042"]},
          decide("delegate_tasks", "Reports a failure", ["rel-042"]),
          call("advance_task", taskId="rel-042", result="failed", output={"failing": "tests/test_tax.py"}),
          text("rel-042 failed its tests and was handed to a human (HITL).")),
     turn("What's pending now?",
          {"intent": "delegate_tasks", "agent": "planner", "tools": ["get_next_tasks_from_tree"],
           "contains": ["rel-041"]},
          decide("delegate_tasks", "Asks for the queue", ["pending"]),
          call("get_next_tasks_from_tree", limit=5),
          text("Pending: rel-041 (review) and rel-043 (freeze).")))
conv("tasks-06", "tasks",
     turn("Show me the release workflow's steps",
          {"intent": "delegate_tasks", "agent": "planner", "tools": ["get_execution_plan"],
           "contains": ["deploy"]},
          decide("delegate_tasks", "Asks about a workflow", ["release"]),
          call("get_execution_plan", workflowId="release"),
          text("freeze, run the tests, write the changelog, release review, deploy.")),
     turn("Where is rel-043 in it?",
          {"intent": "delegate_tasks", "agent": "planner", "tools": ["get_task"],
           "contains": ["freeze"]},
          decide("delegate_tasks", "Asks about a task", ["rel-043"]),
          call("get_task", taskId="rel-043"),
          text("rel-043 is pending at the freeze step.")))
conv("tasks-07", "tasks",
     turn("Claim rel-043 for the release bot",
          {"intent": "delegate_tasks", "agent": "planner", "tools": ["claim_task"],
           "contains": ["claimed"]},
          decide("delegate_tasks", "Claims a task", ["rel-043"]),
          call("claim_task", taskId="rel-043", agent="release-bot"),
          text("rel-043 is claimed by release-bot for five minutes.")),
     turn("The bot froze the branch for rel-043",
          {"intent": "delegate_tasks", "agent": "planner", "tools": ["advance_task"],
           "taskStatus": {"rel-043": "PENDING"}, "contains": ["test"]},
          decide("delegate_tasks", "Reports a step result", ["rel-043"]),
          call("advance_task", taskId="rel-043", agent="release-bot", result="passed"),
          text("rel-043 moved on to the test suite.")))
conv("tasks-08", "tasks",
     turn("The review of rel-041 failed, the changelog misses the tax fix",
          {"intent": "delegate_tasks", "agent": "planner", "tools": ["advance_task"],
           "taskStatus": {"rel-041": "PENDING"}, "contains": ["changelog"]},
          decide("delegate_tasks", "Reports a gate failure", ["rel-041"]),
          call("advance_task", taskId="rel-041", result="failed", output={"reason": "missing tax fix"}),
          text("rel-041 went back to the changelog (retry 1 of 2).")),
     turn("Which changes still need syncing?",
          {"intent": "delegate_tasks", "agent": "planner", "tools": ["get_pending_syncs"],
           "contains": ["sync-"]},
          decide("delegate_tasks", "Asks about syncs", ["syncs"]),
          call("get_pending_syncs"),
          text("One change awaits sync: sync-1 (rel-041 back to changelog).")))
conv("tasks-invalid-01", "tasks",
     turn("Mark the changelog for rel-042 as done... no wait, the tests for rel-042 passed",
          {"intent": "delegate_tasks", "agent": "planner", "tools": ["advance_task"],
           "taskStatus": {"rel-042": "PENDING"}, "contains": ["rel-042"]},
          decide("delegate_tasks", "Reports a step result", ["rel-042"]),
          call("advance_task", task="rel-042", result="passed"),
          call("advance_task", taskId="rel-042", result="passed"),
          text("rel-042 passed its tests; next is the changelog.")),
     turn("How far along is rel-042?",
          {"intent": "delegate_tasks", "agent": "planner", "tools": ["get_task_progress"],
           "contains": ["rel-042"]},
          decide("delegate_tasks", "Asks about progress", ["rel-042"]),
          call("get_task_progress", taskId="rel-042"),
          text("rel-042 is at the changelog step, about halfway through the release.")))

# --- search, then draft from what was found --------------------------------------------------
DRAFT = [
    ("Q4 strategic expansion", "proj_q4", "Q4 Strategic Expansion", "Sam",
     "Look up the Q4 expansion and draft an update email to Sam"),
    ("Project Phoenix", "proj_phoenix", "Project Phoenix", "Jane",
     "Find Project Phoenix and write Jane a status note about it"),
    ("hire two backend engineers", "proj_hiring", "Hire Two Backend Engineers", "Omar",
     "Check the backend hiring project and draft a message to Omar about next steps"),
    ("TechConf 2026 talk", "proj_conf_talk", "TechConf 2026 Talk", "Li",
     "Find my TechConf talk project and draft a note to Li asking for a rehearsal"),
    ("kitchen renovation", "proj_kitchen", "Kitchen Renovation", "the contractor",
     "Look up the kitchen renovation and draft an email to the contractor"),
    ("enterprise renewals", "proj_renewals", "Enterprise Renewals Q1", "Priya",
     "Find the enterprise renewals project and write Priya a summary"),
    ("summer trip to Portugal", "proj_family_trip", "Summer Trip to Portugal", "the family",
     "Search for the Portugal trip and draft a message to the family about the plan"),
]
for i, (query, item, title, who, ask) in enumerate(DRAFT):
    draft = f"Hi {who}, a short update on {title}: it is on track; details to follow. Ada"
    conv(f"search-draft-{i + 1:02}", "search_then_draft",
         turn(ask,
              {"intent": "delegate_search", "agent": "navigator,communicator",
               "tools": ["search_knowledge"], "sources": [item], "within": 5, "contains": [title, who]},
              decide("delegate_search", "Search, then write", sub_tasks=[
                  {"intent": "delegate_search", "instruction": query},
                  {"intent": "delegate_draft", "instruction": f"Draft a short update to {who} about {title}",
                   "delegationContext": {"relevantEntities": [who]}}]),
              call("search_knowledge", query=query),
              text(f"Found \"{title}\" [{item}]."),
              text(draft),
              text(f"I found \"{title}\" [{item}] and drafted this for {who}:\n\n{draft}")),
         turn("Make the draft shorter",
              {"intent": "delegate_draft", "agent": "communicator", "contains": [who]},
              decide("delegate_draft", "Rewrites the draft", [who]),
              text(f"Hi {who}, {title} is on track. Ada")))

conv("search-draft-invalid-01", "search_then_draft",
     turn("Find the notes on the Acme QBR and draft a thank-you to Acme",
          {"intent": "delegate_search", "agent": "navigator,communicator",
           "tools": ["search_knowledge"], "sources": ["res_qbr_deck"], "within": 5, "contains": ["Acme QBR Deck"]},
          decide("delegate_search", "Search, then write", sub_tasks=[
              {"intent": "delegate_search", "instruction": "Acme QBR deck"},
              {"intent": "delegate_draft", "instruction": "Draft a thank-you email to Acme after the QBR",
               "delegationContext": {"relevantEntities": ["Acme"]}}]),
          call("search_knowledge", query="Acme QBR", category="resources"),
          call("search_knowledge", query="Acme QBR", categories=["resource"]),
          text("Found \"Acme QBR Deck\" [res_qbr_deck]."),
          text("Dear Acme team, thank you for the quarterly business review. Ada"),
          text("From \"Acme QBR Deck\" [res_qbr_deck], a thank-you draft:\n\nDear Acme team, thank you for the quarterly business review. Ada")),
     turn("Thanks",
          {"intent": "direct_answer", "contains": ["welcome"]},
          decide("direct_answer", "Thanks", response="You're welcome!")))

# --- unavailable specialists: answered as such, then something that works ------------------
UNAVAILABLE = [
    ("What's urgent in my inbox today?", "delegate_triage", "inbox",
     "Then find my notes on the Acme QBR", "Acme QBR", "res_qbr_deck", "Acme QBR Deck"),
    ("Book a review with John on Thursday", "delegate_schedule", "calendar",
     "OK, find the Design Doc Template instead", "design doc template", "tmpl_design_doc", "Design Doc Template"),
    ("Remember that I prefer morning meetings", "delegate_learn", "preference",
     "Find the One-on-One Template", "one-on-one template", "tmpl_one_on_one", "One-on-One Template"),
    ("Am I free tomorrow afternoon?", "delegate_schedule", "calendar",
     "Then look up the Weekly Review Template", "weekly review template", "tmpl_weekly_review", "Weekly Review Template"),
]
for i, (ask, intent, what, follow, query, item, title) in enumerate(UNAVAILABLE):
    conv(f"unavailable-{i + 1:02}", "unavailable",
         turn(ask, {"intent": intent, "unavailable": True},
              decide(intent, f"A {what} request", [what])),
         turn(follow,
              {"intent": "delegate_search", "agent": "navigator", "tools": ["search_knowledge"],
               "sources": [item], "within": 5, "contains": [title]},
              decide("delegate_search", "Looks for a note", [query]),
              call("search_knowledge", query=query),
              text(f"\"{title}\" [{item}] is in your resources.")))

# --- direct answers and clarifications ---------------------------------------------------
conv("direct-01", "direct_answer",
     turn("Good morning!", {"intent": "direct_answer", "contains": ["good morning"]},
          decide("direct_answer", "Greeting", response="Good morning, Ada! What can I do for you?")),
     turn("What does PARA stand for?", {"intent": "direct_answer", "contains": ["projects", "archives"]},
          decide("direct_answer", "General knowledge",
                 response="Projects, Areas, Resources, Archives: the four places notes live.")))
conv("direct-02", "direct_answer",
     turn("What's the difference between BM25 and vector search, in one sentence?",
          {"intent": "direct_answer", "contains": ["keywords"]},
          decide("direct_answer", "General knowledge",
                 response="BM25 scores exact keywords; vector search compares meanings.")),
     turn("And which does my search use?", {"intent": "direct_answer", "contains": ["both"]},
          decide("direct_answer", "Follow-up from the conversation",
                 response="Both: hybrid search fuses keyword and vector results.")))
conv("direct-03", "direct_answer",
     turn("Write me a poem about tax law", {"intent": "cannot_help", "contains": ["can't"]},
          decide("cannot_help", "Out of scope",
                 response="I can't write poems here, but I can find your tax documents.")),
     turn("Then find my 2025 tax return documents",
          {"intent": "delegate_search", "agent": "navigator", "tools": ["search_knowledge"],
           "sources": ["res_tax_2025"], "within": 5, "contains": ["Tax Return 2025"]},
          decide("delegate_search", "Looks for documents", ["tax return 2025"]),
          call("search_knowledge", query="tax return 2025 documents"),
          text("\"Tax Return 2025 Documents\" [res_tax_2025] holds them.")))
CLARIFY = [
    ("Can you do the thing from before?", "Which thing do you mean: a search, code, or a task?",
     "The design doc for search", "search architecture design doc", "res_design_doc_search",
     "Search Architecture Design Doc"),
    ("Fix it", "What should I fix: a task, code or a note?",
     "The notifications design doc, find it", "notifications design doc", "res_design_doc_notifications",
     "Notifications Design Doc"),
    ("Send that over", "What should I send, and to whom?",
     "Never mind, find the brand guidelines", "brand guidelines", "res_brand", "Brand Guidelines"),
]
for i, (ask, question, follow, query, item, title) in enumerate(CLARIFY):
    conv(f"clarify-{i + 1:02}", "clarify",
         turn(ask, {"intent": "clarify", "contains": [question.split(":")[0].split(",")[0]]},
              decide("clarify", "Too vague to act on", follow_ups=[question])),
         turn(follow,
              {"intent": "delegate_search", "agent": "navigator", "tools": ["search_knowledge"],
               "sources": [item], "within": 5, "contains": [title]},
              decide("delegate_search", "Looks for a document", [query]),
              call("search_knowledge", query=query),
              text(f"\"{title}\" [{item}] is the one.")))

OUT.write_text(json.dumps(conversations, indent=1, ensure_ascii=False) + "\n")
calls = sum(1 for c in conversations for t in c["turns"] for r in t["recorded"] if "tool_calls" in r)
print(f"{len(conversations)} conversations, {sum(len(c['turns']) for c in conversations)} turns, "
      f"{calls} tool calls -> {OUT}")
