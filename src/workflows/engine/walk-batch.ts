import type { ContactDataPatch, WrittenContact } from '../../contacts/contacts.queries.ts';
import { updateContacts } from '../../contacts/contacts.queries.ts';
import { emitSubscriptionChanges } from '../../contacts/contacts.service.ts';
import type { Queryable } from '../../db/index.ts';

/** An UPDATE_CONTACT's write, answered with the contact as written (undefined: no longer in its project). */
export type WriteContact = (patch: ContactDataPatch) => Promise<WrittenContact | undefined>;

type Parked = { walk: number; patch: ContactDataPatch; answer: (written: WrittenContact | undefined) => void };

/**
 * Walks a step transaction's executions one at a time, in the batch's order, and makes their
 * contact writes together (docs/decisions/workflows.md, "Step transaction"): a walk that writes its
 * contact parks until every walk has ended or parked; one statement then writes the parked
 * contacts, with their subscription events, and the walks go on, one at a time, in order. A contact
 * is written once per statement: of two walks writing it, the later in the batch waits for the next
 * statement, so a contact's writes keep the batch's order. A walk's error ends the walking and is thrown.
 */
export async function walkBatch<T>(tx: Queryable, count: number, walk: (index: number, write: WriteContact) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let parked: Parked[] = [];
  // Resolves the turn in progress: its walk parked or ended.
  let yielded = () => {};
  let failure: { error: unknown } | undefined;
  const turn = async (go: () => void) => {
    await new Promise<void>((resolve) => {
      yielded = resolve;
      go();
    });
    if (failure) throw failure.error;
  };
  const start = (index: number) => () => {
    const write: WriteContact = (patch) =>
      new Promise((answer) => {
        parked.push({ walk: index, patch, answer });
        yielded();
      });
    walk(index, write).then(
      (result) => {
        results[index] = result;
        yielded();
      },
      (error: unknown) => {
        failure = { error };
        yielded();
      },
    );
  };
  for (let index = 0; index < count; index++) await turn(start(index));
  while (parked.length > 0) {
    const round: Parked[] = [];
    const later: Parked[] = [];
    const taken = new Set<string>();
    for (const p of parked.sort((a, b) => a.walk - b.walk)) {
      const key = `${p.patch.projectId} ${p.patch.id}`;
      if (taken.has(key)) later.push(p);
      else {
        taken.add(key);
        round.push(p);
      }
    }
    parked = later;
    const written = await updateContacts(
      tx,
      round.map((p) => p.patch),
    );
    await emitSubscriptionChanges(
      tx,
      written.filter((row) => row !== undefined),
    );
    for (const [i, p] of round.entries()) await turn(() => p.answer(written[i]));
  }
  return results;
}
