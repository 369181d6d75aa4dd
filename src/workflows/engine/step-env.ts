import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import type { NewEmail } from '../../emails/emails.queries.ts';
import type { EventInput } from '../../events/events.service.ts';
import type { LockedExecution } from './engine.queries.ts';
import type { RunContext, WorkflowGraph } from './run-context.ts';

/** An email record a step made, written with the others of its transaction. */
export type PendingEmail = { projectId: string; record: NewEmail; event: EventInput | null };

/** Effects a transaction's steps ask for once, at its end (one delivery run for many emails). */
export type Effects = { emails: PendingEmail[] };

/** What a step runs with: the step transaction, the run's workflow and the execution it moves. */
export type StepEnv = { deps: Deps; tx: Queryable; run: RunContext; exec: LockedExecution; graph: WorkflowGraph; effects: Effects };
