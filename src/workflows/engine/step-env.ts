import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import type { MadeRecord } from '../../emails/email-record.ts';
import type { LockedExecution } from './engine.queries.ts';
import type { RunContext, WorkflowGraph } from './run-context.ts';
import type { WriteContact } from './walk-batch.ts';

/**
 * Effects a transaction's steps ask for once, at its end: the email records they made, written
 * together (one delivery run for many emails); and the billing caps the transaction read.
 */
export type Effects = { emails: MadeRecord[]; caps: Map<string, number | null> };

/**
 * What a step runs with: the step transaction, the run's workflow, the execution it moves, and the
 * write of its contact (made with the batch's others: walk-batch.ts).
 */
export type StepEnv = { deps: Deps; tx: Queryable; run: RunContext; exec: LockedExecution; graph: WorkflowGraph; effects: Effects; writeContact: WriteContact };
